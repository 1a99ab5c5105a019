#include "tests/support/ScenarioHarness.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/Simulation.hpp"

namespace quorum::testing {

ScenarioResult simulate_scenario(const nlohmann::json& scenario) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("quorum-scenario-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand())))
                               .string();
  const ChildResult child = run_in_child([&] {
    Scenario s = parse_scenario(scenario, "");
    s.progress = false;
    SimulationOutput out = simulate(s);
    std::ofstream(path) << nlohmann::json{{"summary", out.summary}, {"params", out.final_params}}.dump();
    return 0;
  });
  ScenarioResult r;
  if (child.exit_code != 0) {
    r.error = child.error_text.empty() ? "child died (signal " + std::to_string(child.signal) + ")" : child.error_text;
    return r;
  }
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  r.ok = true;
  r.summary = j["summary"];
  r.final_params = j["params"].get<std::vector<std::vector<float>>>();
  return r;
}

nlohmann::json piz_daint_scenario(const nlohmann::json& algorithm, int iterations, int seed) {
  return {{"name", "issue-11-setting"},
          {"seed", seed},
          {"platform", {{"name", "piz_daint"}, {"nodes", 64}}},
          {"workload", {{"profile", "resnet50_p100"}, {"iterations", iterations}}},
          {"imbalance", {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.32}}},
          {"algorithm", algorithm},
          {"math", {{"model", "none"}}},
          {"output", {{"progress", false}, {"iterations_csv", false}}}};
}

std::pair<double, double> mean_figures(nlohmann::json scenario, int seeds) {
  double throughput = 0, wait = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    scenario["seed"] = seed;
    const auto r = simulate_scenario(scenario);
    if (!r.ok) throw std::runtime_error("seed " + std::to_string(seed) + ": " + r.error);
    throughput += r.summary["throughput_steps_per_s"].get<double>() / seeds;
    wait += r.summary["mean_wait_s"].get<double>() / seeds;
  }
  return {throughput, wait};
}

}  // namespace quorum::testing
