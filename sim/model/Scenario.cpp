#include "sim/model/Scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/model/Fields.hpp"
#include "sim/model/PlatformCatalog.hpp"
#include "sim/model/Sweep.hpp"
#include "sim/model/TrainingOptions.hpp"
#include "sim/model/WorkloadProfile.hpp"

namespace quorum {

namespace {

// A solve window is meant to merge bursts of changes far shorter than any transfer (microseconds against
// milliseconds); past a millisecond it would change what is simulated, not only when it is solved.
constexpr double kMaxFlowSolveWindow_s = 1e-3;

void parse_algorithm(Fields& f, Scenario& s) {
  std::vector<std::string> names;
  for (const auto& a : algorithm_catalog()) names.push_back(a.name);
  s.algorithm = f.string("name", std::nullopt, names);
  const AlgorithmInfo& info = *find_algorithm(s.algorithm);
  auto read = [&f, &s](const ParamSpec& spec) {
    if (!spec.default_value && !f.has(spec.name)) {
      f.mark_used(spec.name);
      return;  // derived below
    }
    const auto& d = spec.default_value;
    switch (spec.type) {
      case ParamType::Bool:
        s.algorithm_params.set(spec.name, f.boolean(spec.name, d ? std::optional<bool>(std::get<bool>(*d)) : std::nullopt));
        break;
      case ParamType::Int: {
        const auto min = spec.min ? static_cast<std::int64_t>(*spec.min) : std::numeric_limits<std::int64_t>::min();
        s.algorithm_params.set(
            spec.name, f.integer(spec.name, d ? std::optional<std::int64_t>(std::get<std::int64_t>(*d)) : std::nullopt, min));
        break;
      }
      case ParamType::Double: {
        std::optional<double> fallback;
        if (d) fallback = std::holds_alternative<double>(*d) ? std::get<double>(*d)
                                                             : static_cast<double>(std::get<std::int64_t>(*d));
        s.algorithm_params.set(spec.name, f.number(spec.name, fallback, spec.min ? *spec.min : -INFINITY));
        break;
      }
      case ParamType::String:
        s.algorithm_params.set(
            spec.name,
            f.string(spec.name, d ? std::optional<std::string>(std::get<std::string>(*d)) : std::nullopt, spec.choices));
        break;
    }
  };
  for (const auto& spec : common_algorithm_params()) read(spec);
  for (const auto& spec : info.params) read(spec);
  f.finish();
  if (info.derive) info.derive(s.algorithm_params, s.ranks);
  // Record derived values too, so summary.json shows what ran.
  for (const auto& [key, value] : s.algorithm_params.values())
    std::visit([&f, &key](const auto& v) { f.set_resolved(key, v); }, value);
  if (info.validate) {
    const std::string error = info.validate(s.algorithm_params, s.ranks);
    if (!error.empty()) {
      // validate() messages start with the parameter name: "group_size: ...".
      const auto colon = error.find(':');
      const std::string key = colon == std::string::npos ? std::string() : error.substr(0, colon);
      throw ScenarioError(key.empty() ? "algorithm" : "algorithm." + key,
                          colon == std::string::npos ? error : error.substr(colon + 2));
    }
  }
}

// training_ranks: ranks that compute gradients (for the linear scaling rule); iterations: the cosine horizon.
MathConfig parse_math(Fields& f, std::int64_t default_batch, const std::string& base_dir, int training_ranks,
                      std::int64_t iterations) {
  MathConfig m;
  std::vector<std::string> models;
  for (const auto& info : model_catalog()) models.push_back(info.name);
  m.model = f.string("model", "none", models);
  m.batch = f.integer("batch", default_batch, 1, 1 << 20);
  m.sgd.lr = f.number("lr", 0.1, 0.0);
  m.sgd.momentum = f.number("momentum", 0.9, 0.0, 1.0);
  m.sgd.weight_decay = f.number("weight_decay", 0.0, 0.0);
  m.eval_every = f.integer("eval_every", 0, 0);
  m.threads = static_cast<int>(f.integer("threads", 0, 0, 1024));
  m.partition = parse_partition(f, m.model);
  m.sgd.lr = parse_lr_scaling(f, m.sgd.lr, training_ranks, m.batch);
  m.sgd.schedule = parse_lr_schedule(f, m.sgd.lr, iterations);
  parse_targets(f, m);
  if (uses_fashion_mnist(m.model)) {
    m.dataset_dir = resolve_scenario_path(base_dir, f.string("dataset_dir", std::string(kDefaultFashionMnistDir)));
    std::string why;
    if (!fashion_mnist_available(m.dataset_dir, &why))
      f.fail("dataset_dir", "Fashion-MNIST is not readable there (" + why +
                                "); install Debian's dataset-fashion-mnist or point math.dataset_dir at the IDX files");
    if (m.model == "mlp") m.hidden = f.integer("hidden", m.hidden, 1, 1 << 16);
    if (m.model == "cnn") {
      m.conv1_channels = f.integer("conv1_channels", m.conv1_channels, 1, 256);
      m.conv2_channels = f.integer("conv2_channels", m.conv2_channels, 1, 256);
    }
  } else if (m.model == "hyperplane") {
    m.hyperplane.dim = f.integer("dim", m.hyperplane.dim, 1, 1 << 20);
    m.hyperplane.train_size = f.integer("train_size", m.hyperplane.train_size, 1);
    m.hyperplane.test_size = f.integer("test_size", m.hyperplane.test_size, 1);
    m.hyperplane.noise_sd = f.number("noise_sd", m.hyperplane.noise_sd, 0.0);
  }
  f.finish();
  return m;
}

}  // namespace

RunSettings Scenario::run_settings() const {
  RunSettings r;
  r.iterations = iterations;
  r.seed = seed;
  r.world_size = ranks;
  r.world = Group::world(ranks);
  r.model_bytes = static_cast<double>(parameters) * 4.0;
  r.ranks_per_node = ranks_per_node(platform);
  r.allreduce = allreduce_options_from(algorithm_params, fidelity);
  // The profile's layer table, when the scenario communicates the profile's model (not an overridden size).
  if (const WorkloadProfile* profile = find_workload_profile(workload_profile)) {
    std::int64_t sum = 0;
    for (const auto& l : profile->gradients.layers) sum += l.parameters;
    if (sum == parameters) r.gradients = profile->gradients;
  }
  return r;
}

ComputeModel Scenario::compute_model() const {
  return ComputeModel(compute, StragglerModel(imbalance, ranks, seed), seed);
}

nlohmann::json read_scenario_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError("(file)", "cannot read scenario file '" + path + "'");
  try {
    return nlohmann::json::parse(in, nullptr, true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::parse_error& e) {
    throw ScenarioError("(file)", "'" + path + "' is not valid JSON: " + e.what());
  }
}

nlohmann::json parse_override_value(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    return text;  // bare words are strings: --set algorithm.name=local_sgd
  }
}

void set_field(nlohmann::json& scenario, const std::string& path, nlohmann::json value) {
  nlohmann::json* node = &scenario;
  std::size_t start = 0;
  for (;;) {
    const auto dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (key.empty()) throw ScenarioError(path, "empty component in the field's dotted path");
    if (!node->is_object()) {
      if (!node->is_null()) throw ScenarioError(path, "cannot set a field inside a non-object value");
      *node = nlohmann::json::object();
    }
    if (dot == std::string::npos) {
      (*node)[key] = std::move(value);
      return;
    }
    node = &(*node)[key];
    start = dot + 1;
  }
}

bool algorithm_entry_takes(const nlohmann::json& entry, const std::string& field) {
  if (field == "label") return true;
  const AlgorithmInfo* info =
      entry.is_object() && entry.contains("name") && entry["name"].is_string()
          ? find_algorithm(entry["name"].get<std::string>())
          : nullptr;
  if (info == nullptr) return false;
  auto named = [&field](const ParamSpec& p) { return p.name == field; };
  return std::any_of(info->params.begin(), info->params.end(), named) ||
         std::any_of(common_algorithm_params().begin(), common_algorithm_params().end(), named);
}

namespace {

std::string entry_label(const nlohmann::json& entry) {
  return entry.is_object() ? entry.value("label", entry.value("name", std::string("?"))) : std::string("?");
}

// --set on a scenario whose algorithm is a list. Returns false if `key` does not address the list.
bool set_on_algorithm_list(nlohmann::json& list, const std::string& key, const nlohmann::json& value) {
  if (key.rfind("algorithm[", 0) == 0) {
    const auto close = key.find(']');
    const std::string digits = close == std::string::npos ? "" : key.substr(10, close - 10);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6)
      throw ScenarioError(key, "expected algorithm[i] with i an entry's index, e.g. algorithm[1].tau=5");
    const std::size_t i = std::stoul(digits);
    if (i >= list.size())
      throw ScenarioError("algorithm[" + digits + "]", "the algorithm list has " + std::to_string(list.size()) +
                                                           " entries: algorithm[0] to algorithm[" +
                                                           std::to_string(list.size() - 1) + "]");
    const std::string rest = key.substr(close + 1);
    if (rest.empty()) list[i] = value;
    else if (rest[0] != '.' || rest.size() == 1) throw ScenarioError(key, "expected algorithm[i].field=value");
    else set_field(list[i], rest.substr(1), value);
    return true;
  }
  if (key.rfind("algorithm.", 0) != 0) return false;
  const std::string rest = key.substr(10);
  const std::string field = rest.substr(0, rest.find('.'));
  if (field == "name") {
    list = algorithm_entry_named(list, value);  // one algorithm instead of the list
    return true;
  }
  std::string labels;
  bool any = false;
  for (auto& entry : list) {
    labels += (labels.empty() ? "" : ", ") + entry_label(entry);
    if (!algorithm_entry_takes(entry, field)) continue;
    set_field(entry, rest, value);
    any = true;
  }
  if (!any)
    throw ScenarioError(key, "no algorithm of the list takes '" + field + "' (entries: " + labels +
                                 "); `quorum list algorithms` shows each one's parameters");
  return true;
}

}  // namespace

nlohmann::json algorithm_entry_named(const nlohmann::json& list, const nlohmann::json& name) {
  for (const auto& entry : list)
    if (entry.is_object() && entry.value("name", nlohmann::json()) == name) {
      nlohmann::json chosen = entry;
      chosen.erase("label");
      return chosen;
    }
  return {{"name", name}};
}

void apply_override(nlohmann::json& scenario, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ScenarioError("--set", "expected key=value (e.g. platform.nodes=256), got '" + assignment + "'");
  const std::string key = assignment.substr(0, eq);
  nlohmann::json value = parse_override_value(assignment.substr(eq + 1));
  if (scenario.is_object() && scenario.contains("algorithm") && scenario["algorithm"].is_array() &&
      set_on_algorithm_list(scenario["algorithm"], key, value))
    return;
  if (key.rfind("algorithm[", 0) == 0)
    throw ScenarioError(key, "algorithm[i] addresses an entry of an algorithm list; this scenario has one algorithm "
                             "(set algorithm.<field>)");
  set_field(scenario, key, std::move(value));
}

Scenario parse_scenario(const nlohmann::json& json, const std::string& base_dir) {
  Scenario s;
  s.base_dir = base_dir;
  Fields root(json, "");
  s.name = root.string("name", "scenario");
  s.description = root.string("description", "");
  s.seed = static_cast<std::uint64_t>(root.integer("seed", 1, 0));

  Fields platform = root.object("platform", true);
  s.platform = parse_platform(platform, base_dir, s.platform_name);
  platform.finish();
  s.ranks = rank_count(s.platform);
  s.nodes = static_cast<int>(platform.resolved().value("nodes", std::int64_t{s.ranks}));
  root.set_resolved("platform", platform.resolved());

  Fields workload = root.object("workload", true);
  std::vector<std::string> profiles;
  for (const auto& p : workload_profiles()) profiles.push_back(p.name);
  s.workload_profile = workload.string("profile", std::nullopt, profiles);
  const WorkloadProfile& profile = *find_workload_profile(s.workload_profile);
  s.iterations = workload.integer("iterations", std::nullopt, 1, std::int64_t{1} << 40);
  s.parameters = workload.integer("parameters", profile.parameters, 0);
  if (workload.has("compute")) {
    Fields compute = workload.object("compute");
    s.compute = parse_distribution(compute, base_dir, s.ranks);
    workload.set_resolved("compute", compute.resolved());
  } else {
    Fields compute(profile.compute, workload.path_of("compute"));
    s.compute = parse_distribution(compute, base_dir, s.ranks);
    workload.set_resolved("compute", compute.resolved());
  }
  workload.finish();
  root.set_resolved("workload", workload.resolved());

  Fields imbalance = root.object("imbalance");
  s.imbalance = parse_imbalance(imbalance, s.ranks, rank_levels(s.platform), base_dir);
  root.set_resolved("imbalance", imbalance.resolved());

  Fields algorithm = root.object("algorithm", true);
  parse_algorithm(algorithm, s);
  root.set_resolved("algorithm", algorithm.resolved());

  const std::string fidelity = root.string("fidelity", "phase", {"chunk", "phase"});
  parse_fidelity(fidelity, s.fidelity);
  s.unshared_control_messages = root.string("control_messages", "unshared", {"unshared", "shared"}) == "unshared";
  s.direct_data_messages = root.string("data_messages", "direct", {"direct", "simgrid"}) == "direct";
  // Control messages shared as SimGrid flows would not share the links with quorum's flows: under control_messages
  // "shared" every message is SimGrid's, unless data_messages "direct" is asked for explicitly, which is an error.
  if (s.direct_data_messages && !s.unshared_control_messages) {
    if (root.has("data_messages"))
      throw ScenarioError("data_messages", "\"direct\" needs control_messages \"unshared\" (control messages that "
                                           "share the links as SimGrid flows would not share them with quorum's flows)");
    s.direct_data_messages = false;
  }
  s.flow_solve_window_s = root.number("flow_solve_window_s", 0.0, 0.0, kMaxFlowSolveWindow_s);
  if (s.flow_solve_window_s > 0 && !s.direct_data_messages)
    throw ScenarioError("flow_solve_window_s", "a window above 0 needs data_messages \"direct\" (quorum's flow model); "
                                               "SimGrid's communications are solved at every change");

  Fields math = root.object("math");
  const AlgorithmInfo& info = *find_algorithm(s.algorithm);
  const int service_ranks =
      info.service_ranks ? static_cast<int>(info.service_ranks(s.algorithm_params, s.ranks).size()) : 0;
  s.math = parse_math(math, profile.batch, base_dir, s.ranks - service_ranks, s.iterations);
  root.set_resolved("math", math.resolved());

  Fields output = root.object("output");
  s.write_iterations_csv = output.boolean("iterations_csv", true);
  s.progress = output.boolean("progress", true);
  s.write_final_params = output.boolean("final_params", false);
  s.trace = parse_trace_options(output);
  output.finish();
  root.set_resolved("output", output.resolved());

  Fields mpi = root.object("mpi");
  s.mpi = parse_mpi_settings(mpi, s.ranks, s.iterations, s.compute, s.imbalance);
  root.set_resolved("mpi", mpi.resolved());
  // The simulator charges the measured MPI_Allreduce only where the real run calls it.
  if (auto* l = std::get_if<LocalhostConfig>(&s.platform); l && !s.mpi.native_allreduce) l->native_allreduce = {};

  // A sweep block describes the points `quorum sweep` runs; the scenario itself is their common base. Checked here
  // so that a typo in it is an error wherever the scenario is read.
  if (root.has("sweep")) {
    parse_sweep_block(root.raw("sweep"));
    root.mark_used("sweep");
  }

  root.finish();
  s.resolved = root.resolved();
  return s;
}

}  // namespace quorum
