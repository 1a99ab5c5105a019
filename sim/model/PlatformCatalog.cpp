#include "sim/model/PlatformCatalog.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace quorum {

namespace {

using Type = PlatformFieldType;

PlatformField field(std::string name, Type type, std::optional<nlohmann::json> default_value, std::string description) {
  PlatformField f;
  f.name = std::move(name);
  f.type = type;
  f.default_value = std::move(default_value);
  f.description = std::move(description);
  return f;
}
PlatformField ranged(PlatformField f, double min, double max) {
  f.min = min;
  f.max = max;
  return f;
}
PlatformField positive(PlatformField f) {
  f.positive = true;
  return f;
}
PlatformField optional(PlatformField f) {
  f.optional = true;
  return f;
}
PlatformField one_of(PlatformField f, std::vector<std::string> allowed) {
  f.allowed = std::move(allowed);
  return f;
}

// A measured native allreduce: [{ranks, bytes, seconds}, ...], as `quorum calibrate` writes it.
NativeAllreduceTable parse_native_table(Fields& f, const std::string& key) {
  const nlohmann::json& list = f.raw(key);
  if (!list.is_array()) f.fail(key, "must be a list of {ranks, bytes, seconds}");
  std::vector<NativeAllreducePoint> points;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) f.fail(key, "entry " + std::to_string(i) + " must be an object {ranks, bytes, seconds}");
    Fields e(list[i], f.path_of(key) + "[" + std::to_string(i) + "]");
    NativeAllreducePoint p;
    p.ranks = static_cast<int>(e.integer("ranks", std::nullopt, 2, 1 << 20));
    p.bytes = e.positive("bytes", std::nullopt);
    p.seconds = e.positive("seconds", std::nullopt);
    e.finish();
    points.push_back(p);
  }
  try {
    return NativeAllreduceTable(points);
  } catch (const std::invalid_argument& e) {
    f.fail(key, e.what());
  }
}

PlatformInfo piz_daint() {
  const PizDaintConfig d;
  PlatformInfo p{"piz_daint", "CSCS Piz Daint: Cray XC50, one P100 per node, Aries dragonfly (up to 8,192 nodes)", {},
                 nullptr};
  p.fields = {ranged(field("nodes", Type::Integer, std::nullopt, "nodes, one rank each"), 1, 8192),
              positive(field("link_bandwidth_Bps", Type::Number, d.link_bandwidth_Bps, "every Aries link, bytes/s")),
              ranged(field("link_latency_s", Type::Number, d.link_latency_s, "per hop, seconds"), 0, INFINITY),
              one_of(field("routing", Type::String, d.routing,
                           "adaptive: Aries' UGAL as pooled capacities; minimal: one shortest path per pair"),
                     {"adaptive", "minimal"}),
              ranged(field("reduce_Bps", Type::Number, d.reduce_Bps,
                           "bytes/s a node sums received blocks at (0: reductions free)"),
                     0, INFINITY)};
  p.parse = [](PlatformFieldReader& r, const std::string&) -> PlatformConfig {
    PizDaintConfig c;
    c.nodes = static_cast<int>(r.integer("nodes"));
    c.link_bandwidth_Bps = r.number("link_bandwidth_Bps");
    c.link_latency_s = r.number("link_latency_s");
    c.routing = r.string("routing");
    c.reduce_Bps = r.number("reduce_Bps");
    return c;
  };
  return p;
}

PlatformInfo maverick2() {
  const Maverick2Config d;
  PlatformInfo p{"maverick2",
                 "TACC Maverick2 GTX: 4 GTX 1080 Ti per node on PCIe, one FDR InfiniBand link per node, fat tree",
                 {},
                 nullptr};
  p.fields = {
      ranged(field("nodes", Type::Integer, std::nullopt, "nodes"), 1, Maverick2Config::kLeafPorts * 32),
      ranged(field("gpus_per_node", Type::Integer, d.gpus_per_node, "ranks per node, one per GPU"), 1, 16),
      positive(field("ib_bandwidth_Bps", Type::Number, d.ib_bandwidth_Bps, "InfiniBand link, bytes/s")),
      ranged(field("ib_latency_s", Type::Number, d.ib_latency_s, "per fat-tree hop, seconds"), 0, INFINITY),
      positive(field("pcie_bandwidth_Bps", Type::Number, d.pcie_bandwidth_Bps, "a GPU's PCIe link, bytes/s")),
      ranged(field("pcie_latency_s", Type::Number, d.pcie_latency_s, "PCIe, seconds"), 0, INFINITY)};
  p.parse = [](PlatformFieldReader& r, const std::string&) -> PlatformConfig {
    Maverick2Config c;
    c.nodes = static_cast<int>(r.integer("nodes"));
    c.gpus_per_node = static_cast<int>(r.integer("gpus_per_node"));
    c.ib_bandwidth_Bps = r.number("ib_bandwidth_Bps");
    c.ib_latency_s = r.number("ib_latency_s");
    c.pcie_bandwidth_Bps = r.number("pcie_bandwidth_Bps");
    c.pcie_latency_s = r.number("pcie_latency_s");
    return c;
  };
  return p;
}

// The calibrated figures of a localhost platform, from the file `quorum calibrate` wrote.
void read_calibration(PlatformFieldReader& r, const std::string& base_dir, LocalhostConfig& c) {
  Fields& f = r.fields();
  const std::string file = resolve_scenario_path(base_dir, f.string("calibration", std::nullopt));
  std::ifstream in(file);
  if (!in) f.fail("calibration", "cannot read calibration file '" + file + "' (write one with quorum calibrate)");
  nlohmann::json cal;
  try {
    cal = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    f.fail("calibration", "'" + file + "' is not valid JSON: " + e.what());
  }
  Fields cf(cal, f.path_of("calibration") + "(" + file + ")");
  c.latency_s = cf.number("latency_s", std::nullopt, 0.0);
  c.bandwidth_Bps = cf.positive("bandwidth_Bps", std::nullopt);
  if (cal.contains("aggregate_bandwidth_Bps")) c.aggregate_bandwidth_Bps = cf.positive("aggregate_bandwidth_Bps", std::nullopt);
  // Calibrations written before these were measured have neither: reductions free, native allreduce simulated.
  if (cal.contains("reduce_Bps")) c.reduce_Bps = cf.positive("reduce_Bps", std::nullopt);
  if (cal.contains("native_allreduce")) c.native_allreduce = parse_native_table(cf, "native_allreduce");
  // Calibrations written before cores were recorded leave them unmodelled, as before.
  if (cal.contains("cores")) c.cores = static_cast<int>(cf.integer("cores", std::nullopt, 1, 1 << 20));
  // A job over several nodes: the node's figures above, the adapters' between nodes (Calibration.hpp).
  if (cal.contains("inter_node")) {
    c.ranks_per_node = static_cast<int>(cf.integer("ranks_per_node", std::nullopt, 1, 1 << 20));
    Fields inter(cal["inter_node"], cf.path_of("inter_node"));
    c.inter_node_latency_s = inter.number("latency_s", std::nullopt, 0.0);
    c.adapter_bandwidth_Bps = inter.positive("adapter_Bps", std::nullopt);
  }
  f.set_resolved("calibrated", {{"latency_s", c.latency_s},
                                {"bandwidth_Bps", c.bandwidth_Bps},
                                {"aggregate_bandwidth_Bps", c.aggregate_bandwidth_Bps},
                                {"reduce_Bps", c.reduce_Bps},
                                {"native_allreduce_points", c.native_allreduce.points().size()},
                                {"cores", c.cores},
                                {"ranks_per_node", c.ranks_per_node},
                                {"inter_node_latency_s", c.inter_node_latency_s},
                                {"adapter_bandwidth_Bps", c.adapter_bandwidth_Bps}});
}

// Nodes must hold equal blocks of ranks, and a platform of several nodes needs its adapters' rate.
void check_nodes(PlatformFieldReader& r, const LocalhostConfig& c, bool calibrated) {
  if (localhost_nodes(c) == 1) return;
  Fields& f = r.fields();
  if (c.ranks % c.ranks_per_node != 0)
    f.fail("nodes", std::to_string(c.ranks) + " ranks do not fill nodes of " + std::to_string(c.ranks_per_node) +
                        " ranks (" + (calibrated ? "the calibration's ranks_per_node" : "platform.ranks_per_node") +
                        "): use a multiple of it, or at most one node's ranks");
  if (!calibrated && c.adapter_bandwidth_Bps <= 0)
    f.fail("adapter_bandwidth_Bps", "a platform of several nodes (ranks_per_node " +
                                        std::to_string(c.ranks_per_node) + ") needs its adapters' rate, bytes/s > 0");
}

PlatformInfo localhost() {
  const LocalhostConfig d;
  PlatformInfo p{"localhost",
                 "this machine (or a cluster's nodes) as calibrated by `quorum calibrate`: a star of ranks per node with "
                 "measured latency and bandwidth, nodes joined by their adapters",
                 {},
                 nullptr};
  const std::string inline_only = "; without calibration only";
  p.fields = {
      ranged(field("nodes", Type::Integer, std::nullopt, "ranks"), 1, 4096),
      optional(field("calibration", Type::File, std::nullopt,
                     "a file written by quorum calibrate; replaces every field below")),
      ranged(field("latency_s", Type::Number, d.latency_s, "one-way point-to-point latency, seconds" + inline_only), 0,
             INFINITY),
      positive(field("bandwidth_Bps", Type::Number, d.bandwidth_Bps,
                     "point-to-point bandwidth between two ranks, bytes/s" + inline_only)),
      ranged(field("aggregate_bandwidth_Bps", Type::Number, d.aggregate_bandwidth_Bps,
                   "what all concurrent flows share (the memory system), bytes/s; 0: unshared" + inline_only),
             0, INFINITY),
      ranged(field("reduce_Bps", Type::Number, d.reduce_Bps,
                   "summing received vectors, bytes/s per rank; 0: free" + inline_only),
             0, INFINITY),
      optional(field("native_allreduce", Type::Table, std::nullopt,
                     "measured MPI_Allreduce [{ranks, bytes, seconds}]" + inline_only)),
      ranged(field("cores", Type::Integer, d.cores,
                   "cores the ranks share (fewer than ranks: reductions and native allreduces share them); 0: a "
                   "core per rank" + inline_only),
             0, 1 << 20),
      ranged(field("ranks_per_node", Type::Integer, d.ranks_per_node,
                   "ranks on each node, in rank order (0: one node); the figures above are then a node's" +
                       inline_only),
             0, 1 << 20),
      ranged(field("inter_node_latency_s", Type::Number, d.inter_node_latency_s,
                   "one-way latency between ranks of two nodes, seconds" + inline_only),
             0, INFINITY),
      ranged(field("adapter_bandwidth_Bps", Type::Number, d.adapter_bandwidth_Bps,
                   "what a node's ranks together send to other nodes (its network adapter), bytes/s" + inline_only),
             0, INFINITY)};
  p.parse = [](PlatformFieldReader& r, const std::string& base_dir) -> PlatformConfig {
    LocalhostConfig c;
    c.ranks = static_cast<int>(r.integer("nodes"));
    if (r.has("calibration")) {
      read_calibration(r, base_dir, c);
      check_nodes(r, c, true);
      return c;
    }
    c.latency_s = r.number("latency_s");
    c.bandwidth_Bps = r.number("bandwidth_Bps");
    c.aggregate_bandwidth_Bps = r.number("aggregate_bandwidth_Bps");
    c.reduce_Bps = r.number("reduce_Bps");
    c.cores = static_cast<int>(r.integer("cores"));
    c.ranks_per_node = static_cast<int>(r.integer("ranks_per_node"));
    c.inter_node_latency_s = r.number("inter_node_latency_s");
    c.adapter_bandwidth_Bps = r.number("adapter_bandwidth_Bps");
    check_nodes(r, c, false);
    if (r.has("native_allreduce")) {
      Fields& f = r.fields();
      c.native_allreduce = parse_native_table(f, "native_allreduce");
      f.mark_used("native_allreduce");
      f.set_resolved("native_allreduce", f.raw("native_allreduce"));
    }
    return c;
  };
  return p;
}

PlatformInfo generic() {
  const GenericConfig d;
  PlatformInfo p{"generic", "cluster, fat_tree, dragonfly or torus from explicit parameters", {}, nullptr};
  auto dragonfly = [](const std::string& name, unsigned fallback, const std::string& what) {
    return ranged(field(name, Type::Integer, fallback, what + " (dragonfly)"), 1, 100000);
  };
  p.fields = {
      one_of(field("topology", Type::String, d.topology, "the network's shape"),
             {"cluster", "fat_tree", "dragonfly", "torus"}),
      ranged(field("nodes", Type::Integer, std::nullopt, "ranks, one per leaf host"), 1, 65536),
      positive(field("bandwidth_Bps", Type::Number, d.bandwidth_Bps, "every link, bytes/s")),
      ranged(field("latency_s", Type::Number, d.latency_s, "every link, seconds"), 0, INFINITY),
      one_of(field("network_model", Type::String, d.network_model, "SimGrid's network model"), {"CM02", "LV08"}),
      ranged(field("levels", Type::Integer, d.fat_tree_levels, "levels (fat_tree)"), 1, 8),
      ranged(field("down", Type::IntegerList, std::nullopt, "children per switch, one per level (fat_tree)"), 1,
             INFINITY),
      ranged(field("up", Type::IntegerList, std::nullopt, "parents per switch, one per level (fat_tree)"), 1,
             INFINITY),
      ranged(field("parallel", Type::IntegerList, std::nullopt, "parallel links, one per level (fat_tree)"), 1,
             INFINITY),
      dragonfly("groups", d.groups, "groups"),
      dragonfly("group_links", d.group_links, "links between two groups"),
      dragonfly("chassis", d.chassis, "chassis per group"),
      dragonfly("chassis_links", d.chassis_links, "links between two chassis"),
      dragonfly("routers", d.routers, "routers per chassis"),
      dragonfly("router_links", d.router_links, "links between two routers"),
      dragonfly("nodes_per_router", d.nodes_per_router, "nodes per router"),
      one_of(field("routing", Type::String, d.routing,
                   "minimal or adaptive (pooled capacities of UGAL routing; dragonfly only)"),
             {"minimal", "adaptive"}),
      ranged(field("dimensions", Type::IntegerList, std::nullopt, "the torus's sizes (torus)"), 1, INFINITY)};
  p.parse = [](PlatformFieldReader& r, const std::string&) -> PlatformConfig {
    GenericConfig c;
    c.topology = r.string("topology");
    c.nodes = static_cast<int>(r.integer("nodes"));
    c.bandwidth_Bps = r.number("bandwidth_Bps");
    c.latency_s = r.number("latency_s");
    c.network_model = r.string("network_model");
    Fields& f = r.fields();
    std::int64_t capacity = c.nodes;
    auto per_level = [&r, &f](const std::string& key, std::size_t n) {
      const auto v = r.integer_list(key);
      if (v.size() != n) f.fail(key, "must list " + std::to_string(n) + " values (one per level)");
      return std::vector<unsigned>(v.begin(), v.end());
    };
    if (c.topology == "fat_tree") {
      c.fat_tree_levels = static_cast<int>(r.integer("levels"));
      const auto n = static_cast<std::size_t>(c.fat_tree_levels);
      c.fat_tree_down = per_level("down", n);
      c.fat_tree_up = per_level("up", n);
      c.fat_tree_parallel = per_level("parallel", n);
      capacity = 1;
      for (unsigned v : c.fat_tree_down) capacity *= v;
    } else if (c.topology == "dragonfly") {
      auto u = [&r](const std::string& key) { return static_cast<unsigned>(r.integer(key)); };
      c.groups = u("groups");
      c.group_links = u("group_links");
      c.chassis = u("chassis");
      c.chassis_links = u("chassis_links");
      c.routers = u("routers");
      c.router_links = u("router_links");
      c.nodes_per_router = u("nodes_per_router");
      c.routing = r.string("routing");
      capacity = std::int64_t{c.groups} * c.chassis * c.routers * c.nodes_per_router;
    }
    if (c.topology != "dragonfly" && r.has("routing"))
      f.fail("routing", "applies to the dragonfly topology only (this platform's topology is " + c.topology + ")");
    if (c.topology == "torus") {
      const auto dims = r.integer_list("dimensions");
      c.torus_dimensions.assign(dims.begin(), dims.end());
      capacity = 1;
      for (auto v : dims) capacity *= v;
    }
    if (c.nodes > capacity)
      f.fail("nodes", "the " + c.topology + " described has only " + std::to_string(capacity) + " leaves, but " +
                          std::to_string(c.nodes) + " nodes were asked for");
    return c;
  };
  return p;
}

PlatformInfo xml() {
  const XmlConfig d;
  PlatformInfo p{"xml", "a SimGrid XML platform file; ranks on its hosts in name order", {}, nullptr};
  p.fields = {field("file", Type::File, std::nullopt, "the SimGrid platform file"),
              ranged(field("nodes", Type::Integer, std::nullopt, "ranks"), 1, 65536),
              one_of(field("network_model", Type::String, d.network_model, "SimGrid's network model"),
                     {"CM02", "LV08"})};
  p.parse = [](PlatformFieldReader& r, const std::string& base_dir) -> PlatformConfig {
    XmlConfig c;
    Fields& f = r.fields();
    c.file = resolve_scenario_path(base_dir, f.string("file", std::nullopt));
    if (!std::filesystem::is_regular_file(c.file)) f.fail("file", "cannot read SimGrid platform file '" + c.file + "'");
    c.ranks = static_cast<int>(r.integer("nodes"));
    c.network_model = r.string("network_model");
    return c;
  };
  return p;
}

std::int64_t integer_bound(double bound) {
  if (bound == -INFINITY) return std::numeric_limits<std::int64_t>::min();
  if (bound == INFINITY) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(bound);
}

}  // namespace

const PlatformField& PlatformFieldReader::spec(const std::string& name) const {
  for (const auto& f : info_.fields)
    if (f.name == name) return f;
  throw std::logic_error("platform '" + info_.name + "' reads field '" + name + "' that its catalog entry lacks");
}

std::int64_t PlatformFieldReader::integer(const std::string& name) {
  const PlatformField& s = spec(name);
  std::optional<std::int64_t> fallback;
  if (s.default_value) fallback = s.default_value->get<std::int64_t>();
  return fields_.integer(name, fallback, integer_bound(s.min), integer_bound(s.max));
}

double PlatformFieldReader::number(const std::string& name) {
  const PlatformField& s = spec(name);
  std::optional<double> fallback;
  if (s.default_value) fallback = s.default_value->get<double>();
  if (s.positive) return fields_.positive(name, fallback);
  return fields_.number(name, fallback, s.min, s.max);
}

std::string PlatformFieldReader::string(const std::string& name) {
  const PlatformField& s = spec(name);
  std::optional<std::string> fallback;
  if (s.default_value) fallback = s.default_value->get<std::string>();
  return fields_.string(name, fallback, s.allowed);
}

std::vector<std::int64_t> PlatformFieldReader::integer_list(const std::string& name) {
  return fields_.integer_list(name, integer_bound(spec(name).min));
}

const std::vector<PlatformInfo>& platform_catalog() {
  static const std::vector<PlatformInfo> catalog = {piz_daint(), maverick2(), localhost(), generic(), xml()};
  return catalog;
}

PlatformConfig parse_platform(Fields& fields, const std::string& base_dir, std::string& name) {
  std::vector<std::string> names;
  for (const auto& p : platform_catalog()) names.push_back(p.name);
  name = fields.string("name", std::nullopt, names);
  for (const auto& p : platform_catalog())
    if (p.name == name) {
      PlatformFieldReader reader(fields, p);
      return p.parse(reader, base_dir);
    }
  throw std::logic_error("platform '" + name + "' passed the name check but has no catalog entry");
}

std::string describe_platform_field(const PlatformField& f) {
  static const char* const kTypes[] = {"integer", "number", "string", "integer list", "file", "table"};
  std::ostringstream os;
  os << kTypes[static_cast<int>(f.type)];
  if (f.type == Type::Integer || f.type == Type::Number) {
    if (f.positive) os << " > 0";
    else if (f.min != -INFINITY && f.max != INFINITY) os << " in [" << f.min << ", " << f.max << "]";
    else if (f.min != -INFINITY) os << " >= " << f.min;
  }
  if (!f.allowed.empty()) {
    os << ", one of";
    for (const auto& a : f.allowed) os << " " << a;
  }
  os << (f.default_value ? ", default " + f.default_value->dump() : f.optional ? ", optional" : ", required");
  return os.str();
}

}  // namespace quorum
