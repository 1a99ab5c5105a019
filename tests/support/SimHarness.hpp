#pragma once
// Runs code on every rank of a simulated platform, in a child process (SimGrid allows one engine per process), and
// brings back what each rank returned as JSON, the simulated end time, or the error that stopped the run.
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "algorithms/comm/Comm.hpp"
#include "platforms/PlatformConfig.hpp"
#include "sim/model/ComputeModel.hpp"
#include "sim/simgrid/RankRunner.hpp"

namespace quorum::testing {

struct HarnessResult {
  bool ok = false;
  std::string error;
  double end_time = 0;
  std::vector<nlohmann::json> per_rank;
};

// Compute model with a constant step time and the given imbalance.
ComputeModel constant_compute(double seconds, int ranks, StragglerSpec imbalance = {}, std::uint64_t seed = 1);

// math_threads, paths: as run_ranks' (1: the math of Comm::compute runs inline).
HarnessResult run_simulated(const PlatformConfig& platform, const std::function<nlohmann::json(Comm&)>& program,
                            const ComputeModel& compute, int math_threads = 1, MessagePaths paths = {});
HarnessResult run_simulated(const PlatformConfig& platform, const std::function<nlohmann::json(Comm&)>& program);

// Runs body in a child process with a fresh SimGrid engine (its logs quiet) and brings back the JSON it returns;
// ok false and the child's error when it failed. For tests that drive SimGrid directly, without ranks.
struct EngineChildResult {
  bool ok = false;
  std::string error;
  nlohmann::json value;
};
EngineChildResult in_engine_child(const std::function<nlohmann::json()>& body);

// A small star platform with the given ranks (1 us, 10 GB/s).
PlatformConfig star(int ranks);
// One switch with a 10 GB/s, 1 us link to each of `nodes` nodes, and a loopback per node (a star has none).
PlatformConfig one_switch(int nodes);

}  // namespace quorum::testing
