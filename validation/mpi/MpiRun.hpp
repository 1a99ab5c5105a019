#pragma once
// Runs a scenario for real on every rank of MPI_COMM_WORLD: the same algorithm code as the simulator, each rank with
// its own Trainer, compute emulated or real (MpiSettings), the same seeded straggler delays. Rank 0 gathers every
// rank's records and writes the simulator's result files (summary.json with backend "mpi" and measured times,
// iterations.csv, the algorithms' tables, final_params.json when asked). A failure of any rank ends the whole job
// with a message naming the rank and step (see Watchdog, RankRuntime::fail).
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/model/Scenario.hpp"

namespace quorum::mpi {

// The run completed on every rank but is not valid (an algorithm ended ranks early). Thrown on every rank.
class RunFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MpiRunOutput {
  nlohmann::json summary;                        // rank 0 only
  std::vector<std::vector<float>> final_params;  // rank 0 only: every rank's final model
};

// Collective over MPI_COMM_WORLD. out_dir empty: nothing is written. Throws ScenarioError (on every rank) when the
// scenario does not fit the job (rank count, GPU asked for but absent).
MpiRunOutput run_scenario_mpi(const Scenario& scenario, const std::string& out_dir);

}  // namespace quorum::mpi
