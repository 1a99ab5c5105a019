// Each exportable platform becomes one <cluster> element mirroring its C++ builder (same zone name, host names,
// parameters, link bandwidths and latencies); a new topology adds a case here and, if it is not a cluster, its own
// element writer next to XmlCluster.
//
// One known difference: SimGrid's XML parser gives cluster loopback links the FATPIPE policy, where the C++ builders
// create them SHARED (ClusterLeaves.cpp). A loopback only carries messages between a rank and its own progress agents
// (one rank per host), never between ranks.
#include "platforms/PlatformXml.hpp"

#include "platforms/ClusterLeaves.hpp"
#include "platforms/NetworkModelSettings.hpp"
#include "platforms/XmlCluster.hpp"

namespace quorum {

namespace {

using xml::XmlCluster;

struct ExportedCluster {
  XmlCluster cluster;
  std::string what;  // for the file's comment
};

std::string join(const std::vector<unsigned>& values, char separator) {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) s += separator;
    s += std::to_string(values[i]);
  }
  return s;
}

// A cluster-shaped zone with one host per leaf and the fast loopback of ClusterLeaves.hpp.
XmlCluster leaf_cluster(const std::string& id, const std::string& prefix, long hosts, double bandwidth_Bps,
                        double latency_s) {
  XmlCluster c;
  c.id = id;
  c.prefix = prefix;
  c.hosts = hosts;
  c.speed_flops = cluster::kHostSpeed;
  c.bandwidth_Bps = bandwidth_Bps;
  c.latency_s = latency_s;
  c.loopback_bandwidth_Bps = cluster::kLoopbackBandwidth;
  c.loopback_latency_s = 0;
  return c;
}

// SimGrid's dragonfly <cluster> ("groups,blue links;chassis,black links;routers,green links;nodes per router", as
// DragonflyParams), the zone build_dragonfly makes under minimal routing. The adaptive model is hierarchical zones
// of pooled links, which a <cluster> cannot express.
XmlCluster dragonfly_cluster(const std::string& id, const std::string& prefix, const DragonflyLayout& l,
                             const std::string& routing, double bandwidth_Bps, double latency_s) {
  if (routing != "minimal")
    throw PlatformXmlError("platform.routing: the adaptive dragonfly (AdaptiveDragonfly.cpp) is hierarchical zones of "
                           "pooled links, which a <cluster> cannot express; --set platform.routing=minimal exports "
                           "SimGrid's dragonfly");
  const long leaves = static_cast<long>(l.groups) * l.chassis * l.routers * l.nodes_per_router;
  XmlCluster x = leaf_cluster(id, prefix, leaves, bandwidth_Bps, latency_s);
  x.topology = "DRAGONFLY";
  x.topo_parameters = std::to_string(l.groups) + "," + std::to_string(l.group_links) + ";" +
                      std::to_string(l.chassis) + "," + std::to_string(l.chassis_links) + ";" +
                      std::to_string(l.routers) + "," + std::to_string(l.router_links) + ";" +
                      std::to_string(l.nodes_per_router);
  return x;
}

ExportedCluster piz_daint(const PizDaintConfig& c) {
  const DragonflyLayout l = dragonfly_layout(c);
  return {dragonfly_cluster("piz_daint", "nid", l, c.routing, c.link_bandwidth_Bps, c.link_latency_s),
          "piz_daint, " + std::to_string(c.nodes) + " nodes (dragonfly: " + std::to_string(l.groups) +
              " group(s) of " + std::to_string(l.chassis) + " chassis)"};
}

ExportedCluster generic(const GenericConfig& c) {
  const std::string what = "generic " + c.topology + ", " + std::to_string(c.nodes) + " nodes";
  if (c.topology == "cluster") {
    // A star: one split-duplex link per host and no loopback (GenericPlatform.cpp).
    XmlCluster x = leaf_cluster("cluster", "node", c.nodes, c.bandwidth_Bps, c.latency_s);
    x.loopback_bandwidth_Bps = 0;
    return {x, what};
  }
  if (c.topology == "fat_tree") {
    long leaves = 1;
    for (unsigned d : c.fat_tree_down) leaves *= d;
    XmlCluster x = leaf_cluster("fat_tree", "node", leaves, c.bandwidth_Bps, c.latency_s);
    x.topology = "FAT_TREE";
    x.topo_parameters = std::to_string(c.fat_tree_levels) + ";" + join(c.fat_tree_down, ',') + ";" +
                        join(c.fat_tree_up, ',') + ";" + join(c.fat_tree_parallel, ',');
    return {x, what};
  }
  if (c.topology == "dragonfly")
    return {dragonfly_cluster("dragonfly", "node", dragonfly_layout(c), c.routing, c.bandwidth_Bps, c.latency_s),
            what};
  if (c.topology == "torus") {
    long leaves = 1;
    std::vector<unsigned> dims;
    for (int d : c.torus_dimensions) {
      leaves *= d;
      dims.push_back(static_cast<unsigned>(d));
    }
    XmlCluster x = leaf_cluster("torus", "node", leaves, c.bandwidth_Bps, c.latency_s);
    x.topology = "TORUS";
    x.topo_parameters = join(dims, ',');
    return {x, what};
  }
  throw PlatformXmlError("platform.topology: '" + c.topology +
                         "' cannot be exported (allowed: cluster, fat_tree, dragonfly, torus)");
}

// A star of split-duplex links of the measured bandwidth and half the latency, and the shared memory-system link as a
// backbone every transfer crosses once (Localhost.cpp).
ExportedCluster localhost(const LocalhostConfig& c) {
  if (localhost_nodes(c) > 1)
    throw PlatformXmlError("platform.ranks_per_node: a localhost of several nodes (" +
                           std::to_string(localhost_nodes(c)) + " nodes of " + std::to_string(c.ranks_per_node) +
                           " ranks, joined through their adapters) is not one cluster and cannot be exported as one; "
                           "export one node (platform.nodes at most ranks_per_node)");
  if (!c.native_allreduce.empty())
    throw PlatformXmlError("platform.native_allreduce: the localhost platform's measured MPI_Allreduce table is "
                           "charged by quorum's simulator, not by the network, and a SimGrid platform file cannot "
                           "carry it; export without it (mpi.native_allreduce off, or no table in the calibration)");
  XmlCluster x;
  x.id = "localhost";
  x.prefix = "rank";
  x.hosts = c.ranks;
  x.speed_flops = cluster::kHostSpeed;
  x.bandwidth_Bps = c.bandwidth_Bps;
  x.latency_s = c.latency_s / 2;
  x.backbone_bandwidth_Bps = c.aggregate_bandwidth_Bps;
  return {x, "localhost, " + std::to_string(c.ranks) + " ranks"};
}

ExportedCluster exported_cluster(const PlatformConfig& config) {
  if (host_costs(config).reduce_Bps > 0)
    throw PlatformXmlError("platform.reduce_Bps: the cost of summing received blocks is charged by quorum's simulator, "
                           "not by the network, and a SimGrid platform file cannot carry it; set it to 0 to export "
                           "the network alone");
  struct Visitor {
    ExportedCluster operator()(const PizDaintConfig& c) const { return piz_daint(c); }
    ExportedCluster operator()(const GenericConfig& c) const { return generic(c); }
    ExportedCluster operator()(const LocalhostConfig& c) const { return localhost(c); }
    ExportedCluster operator()(const Maverick2Config&) const {
      throw PlatformXmlError(
          "platform maverick2 cannot be exported: its fat tree's leaves are zones (each node a star of GPUs on "
          "PCIe behind one InfiniBand adapter), and SimGrid's XML <cluster> only has hosts as leaves. Exportable: "
          "piz_daint, generic (cluster, fat_tree, dragonfly, torus), localhost");
    }
    ExportedCluster operator()(const XmlConfig& c) const {
      throw PlatformXmlError("platform xml is already a SimGrid platform file (platform.file = " + c.file +
                             "): use that file itself, with network/model " + c.network_model +
                             " and network/crosstraffic 0");
    }
  };
  return std::visit(Visitor{}, config);
}

}  // namespace

PlatformXml platform_xml(const PlatformConfig& config) {
  const ExportedCluster e = exported_cluster(config);
  const int ranks = rank_count(config);
  PlatformXml out;
  for (int r = 0; r < ranks; ++r) out.rank_hosts.push_back(e.cluster.prefix + std::to_string(r));
  const NetworkModelSettings model = network_model_settings(config);
  const std::string comment =
      "Written by quorum platform-xml: " + e.what + ". Rank r runs on host " + e.cluster.prefix + "<r> (ranks 0.." +
      std::to_string(ranks - 1) + " of " + std::to_string(e.cluster.hosts) +
      " hosts). smpirun sets network/model:SMPI on its own command line, which takes precedence over the config "
      "below: add cfg=network/model:" + model.model + " to its options to run under this file's model.";
  out.text = xml::platform_document(comment, model.model, model.crosstraffic, xml::cluster_element(e.cluster, 4));
  return out;
}

}  // namespace quorum
