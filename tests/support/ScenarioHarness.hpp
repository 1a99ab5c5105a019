#pragma once
// Simulates a scenario (JSON) in a child process and brings back its summary and every rank's final model.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace quorum::testing {

struct ScenarioResult {
  bool ok = false;
  std::string error;
  nlohmann::json summary;
  std::vector<std::vector<float>> final_params;
};

ScenarioResult simulate_scenario(const nlohmann::json& scenario);

// Issue 11's setting at 64 nodes: Piz Daint (adaptive routing), ResNet-50 messages, two ranks delayed 0.32 s per
// step, timing only, `algorithm` for `iterations` steps.
nlohmann::json piz_daint_scenario(const nlohmann::json& algorithm, int iterations, int seed);
// Throughput and mean wait, averaged over `seeds` runs from seed 1; throws the error of a run that fails.
std::pair<double, double> mean_figures(nlohmann::json scenario, int seeds);

}  // namespace quorum::testing
