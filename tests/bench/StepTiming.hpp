#pragma once
// Wall time per simulated step, the measure the step benchmarks share: Piz Daint, ResNet-50 profile, 2 random ranks
// delayed 320 ms per step, math off. A run of 1 step and one of 1 + extra steps go to separate processes (SimGrid
// runs one engine per process) and the difference per extra step is reported, so platform construction and process
// start-up are left out.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/Simulation.hpp"

namespace quorum::bench {

inline double simulate_wall_seconds(int nodes, const nlohmann::json& algorithm, int steps,
                                    const std::string& fidelity) {
  const nlohmann::json scenario = {
      {"name", "bench"},
      {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
      {"workload", {{"profile", "resnet50_p100"}, {"iterations", steps}}},
      {"imbalance", {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.32}}},
      {"algorithm", algorithm},
      {"fidelity", fidelity},
      {"output", {{"progress", false}, {"iterations_csv", false}}}};
  const auto start = std::chrono::steady_clock::now();
  const auto child = run_in_child([&] {
    simulate(parse_scenario(scenario, ""));
    return 0;
  });
  if (child.exit_code != 0) throw std::runtime_error("simulation failed: " + child.error_text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double wall_seconds_per_step(int nodes, const nlohmann::json& algorithm, int extra,
                                    const std::string& fidelity = "phase") {
  const double one = simulate_wall_seconds(nodes, algorithm, 1, fidelity);
  const double many = simulate_wall_seconds(nodes, algorithm, 1 + extra, fidelity);
  return std::max(many - one, 0.0) / extra;
}

}  // namespace quorum::bench
