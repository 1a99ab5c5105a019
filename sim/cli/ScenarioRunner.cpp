#include "sim/cli/ScenarioRunner.hpp"

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "sim/model/Results.hpp"
#include "sim/simgrid/Simulation.hpp"

namespace quorum::cli {

void apply_overrides(nlohmann::json& scenario, const std::vector<std::string>& assignments) {
  for (const auto& a : assignments) apply_override(scenario, a);
}

void add_trace_options(CLI::App& command, TraceFlags& flags) {
  command.add_flag("--trace", flags.trace,
                   "write trace.json, a Chrome trace of every rank's compute, communication and waits (open it in "
                   "ui.perfetto.dev or chrome://tracing)");
  command.add_option("--trace-ranks", flags.ranks, "trace only these ranks, e.g. 0-3,8 (implies --trace)")
      ->type_name("RANGES");
  command.add_option("--trace-steps", flags.steps, "trace only these steps, e.g. 100-119 (implies --trace)")
      ->type_name("RANGE");
}

std::vector<std::string> trace_assignments(const TraceFlags& flags) {
  std::vector<std::string> sets;
  // Quoted as JSON strings so that "5" stays a range, not a number that --set would parse.
  if (flags.trace || !flags.ranks.empty() || !flags.steps.empty()) sets.push_back("output.trace=true");
  if (!flags.ranks.empty()) sets.push_back("output.trace_ranks=" + nlohmann::json(flags.ranks).dump());
  if (!flags.steps.empty()) sets.push_back("output.trace_steps=" + nlohmann::json(flags.steps).dump());
  return sets;
}

std::vector<ScenarioVariant> expand_algorithms(const nlohmann::json& scenario) {
  if (!scenario.is_object() || !scenario.contains("algorithm") || !scenario["algorithm"].is_array())
    return {{scenario.is_object() && scenario.contains("algorithm") && scenario["algorithm"].is_object()
                 ? scenario["algorithm"].value("label", scenario["algorithm"].value("name", std::string("run")))
                 : std::string("run"),
             scenario}};
  const auto& list = scenario["algorithm"];
  if (list.empty()) throw ScenarioError("algorithm", "the list of algorithms is empty");
  std::map<std::string, int> uses;
  for (const auto& entry : list)
    if (entry.is_object()) ++uses[entry.value("label", entry.value("name", std::string("run")))];
  std::vector<ScenarioVariant> variants;
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    nlohmann::json entry = list[i];
    if (!entry.is_object())
      throw ScenarioError(std::string("algorithm[").append(std::to_string(i)).append("]"), "must be an object with a name");
    std::string label = entry.value("label", entry.value("name", std::string("run")));
    if (uses[label] > 1) label.append("_").append(std::to_string(++seen[label]));
    entry.erase("label");
    nlohmann::json one = scenario;
    one["algorithm"] = entry;
    variants.push_back({label, one});
  }
  return variants;
}

nlohmann::json simulate_to_dir(const Scenario& scenario, const std::string& dir) {
  SimulationOutput out = simulate(scenario);
  if (scenario.write_final_params) {
    std::filesystem::create_directories(dir);
    write_final_params(dir + "/final_params.json", out.final_params);
  }
  write_results(dir, out.summary, *out.recorder, scenario.write_iterations_csv);
  return out.summary;
}

namespace {
std::string accuracy_text(const nlohmann::json& s) {
  if (s.contains("final_test_accuracy") && s["final_test_accuracy"].is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * s["final_test_accuracy"].get<double>());
    return buf;
  }
  if (s.contains("final_loss") && s["final_loss"].is_number()) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "loss %.4g", s["final_loss"].get<double>());
    return buf;
  }
  return "-";
}
}  // namespace

std::string format_summary_table(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "%-22s %10s %12s %14s %14s %13s %12s\n", "algorithm", "steps/s", "aggr steps/s",
                "sim time (s)", "test accuracy", "mean wait (s)", "wall (s)");
  os << line;
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const auto& s = summaries[i];
    std::snprintf(line, sizeof line, "%-22s %10.4f %12.4f %14.2f %14s %13.4f %12.1f\n", labels[i].c_str(),
                  s.value("throughput_steps_per_s", 0.0), s.value("aggregate_steps_per_s", 0.0),
                  s.value("sim_time_s", 0.0), accuracy_text(s).c_str(),
                  s.value("mean_wait_s", 0.0), s.value("wall_time_s", 0.0));
    os << line;
  }
  return os.str();
}

std::string format_summary_csv(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries) {
  std::ostringstream os;
  os << "label,algorithm,ranks,throughput_steps_per_s,sim_time_s,final_test_accuracy,final_loss,mean_wait_s,"
        "wall_time_s,aggregate_steps_per_s,training_ranks\n";
  auto num = [](const nlohmann::json& s, const char* key) {
    return s.contains(key) && s[key].is_number() ? s[key].dump() : std::string();
  };
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const auto& s = summaries[i];
    os << labels[i] << "," << s.value("algorithm", std::string()) << "," << num(s, "ranks") << ","
       << num(s, "throughput_steps_per_s") << "," << num(s, "sim_time_s") << "," << num(s, "final_test_accuracy")
       << "," << num(s, "final_loss") << "," << num(s, "mean_wait_s") << "," << num(s, "wall_time_s") << ","
       << num(s, "aggregate_steps_per_s") << "," << num(s, "training_ranks") << "\n";
  }
  return os.str();
}

}  // namespace quorum::cli
