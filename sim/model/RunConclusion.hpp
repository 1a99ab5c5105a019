#pragma once
// The end of a run, the same on both backends: every training rank must have reached its last step, the run's time
// is the end of the last step, the models it ended with are evaluated, and the summary is made; then the result
// directory is written. The simulator and the MPI backend differ only in how they got the recorder and the models.
#include <nlohmann/json.hpp>

#include <chrono>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/MathSetup.hpp"
#include "sim/model/RunRecorder.hpp"
#include "sim/model/Scenario.hpp"

namespace quorum {

// An algorithm ended ranks before their last step: the run is not valid (names up to eight ranks and their last
// steps).
class IncompleteRun : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The summary of a finished run; backend is "simgrid" or "mpi"; the wall time runs from wall_start to the end of
// the evaluation. Throws IncompleteRun.
nlohmann::json conclude_run(const Scenario& scenario, const RunRecorder& recorder, const MathSetup& math,
                            const std::vector<std::span<const float>>& final_params,
                            std::chrono::steady_clock::time_point wall_start, const std::string& backend);

// Writes summary.json, iterations.csv, the algorithms' tables, and final_params.json when the scenario asks.
void write_run_directory(const std::string& dir, const Scenario& scenario, const nlohmann::json& summary,
                         const RunRecorder& recorder, const std::vector<std::vector<float>>& final_params);

}  // namespace quorum
