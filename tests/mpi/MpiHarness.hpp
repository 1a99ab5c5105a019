#pragma once
// Runs a program on every rank of the MPI job (the test binary runs under mpirun -np 4) with the MPI backend of
// Comm, the counterpart of tests/support/SimHarness.hpp: each rank returns JSON, and every rank gets back all of
// them (so assertions give the same verdict everywhere), the time the last rank finished, or the error that stopped
// a rank. A watchdog ends the job if a test hangs, naming the rank and step, so a deadlock fails instead of hanging.
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "algorithms/comm/Comm.hpp"
#include "sim/model/MpiSettings.hpp"
#include "sim/model/StragglerModel.hpp"

namespace quorum::testing {

struct MpiHarnessOptions {
  double compute_s = 0;       // constant modelled step time
  StragglerSpec imbalance{};  // on top of it
  double slow_link_Bps = 0;   // slow_link: the bandwidth of a rank's link in the model (RankRuntime)
  std::uint64_t seed = 1;
  MpiSettings settings{};     // emulate, logical sizes, native allreduce on
  std::size_t cache_capacity = 64;  // of the native allreduce's group communicators
  double timeout_s = 60;
};

struct MpiHarnessResult {
  bool ok = false;
  std::string error;  // the first rank's error, prefixed with its rank
  double end_time = 0;
  std::vector<nlohmann::json> per_rank;
  std::vector<nlohmann::json> native_stats;  // per rank, null without native allreduce
};

MpiHarnessResult run_on_ranks(const std::function<nlohmann::json(Comm&)>& program,
                              const MpiHarnessOptions& options = {});

int mpi_rank();
int mpi_size();
// Every rank gets every rank's value (collective).
std::vector<nlohmann::json> allgather_json(const nlohmann::json& mine);
// True on every rank iff it is true on every rank (collective).
bool all_ranks(bool mine);

}  // namespace quorum::testing
