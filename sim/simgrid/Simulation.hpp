#pragma once
// Runs a scenario on SimGrid: one actor per rank running the algorithm with its Trainer (the real math), then
// evaluates the models and builds summary.json. Once per process (SimGrid allows one engine per process).
#include <nlohmann/json.hpp>

#include <memory>

#include "sim/model/RunRecorder.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/simgrid/RankRunner.hpp"

namespace quorum {

struct SimulationOutput {
  nlohmann::json summary;
  std::unique_ptr<RunRecorder> recorder;
  std::vector<std::vector<float>> final_params;  // each rank's model at the end (empty vectors when math is off)
};

SimulationOutput simulate(const Scenario& scenario);

}  // namespace quorum
