#pragma once
// Simulates a scenario (JSON) in a child process and brings back its summary and every rank's final model.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace quorum::testing {

struct ScenarioResult {
  bool ok = false;
  std::string error;
  nlohmann::json summary;
  std::vector<std::vector<float>> final_params;
};

ScenarioResult simulate_scenario(const nlohmann::json& scenario);

}  // namespace quorum::testing
