#pragma once
// Runs one program per rank on a platform in SimGrid: the engine, the platform, one actor per rank, and the checks
// that every rank finished (else: deadlock), that no progress agent was left running, and that no exception
// escaped. simulate() builds on it; tests use it to exercise collectives directly. Once per process (SimGrid).
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "algorithms/comm/Comm.hpp"
#include "platforms/PlatformConfig.hpp"
#include "sim/model/ComputeModel.hpp"

namespace quorum {

// The simulation could not complete (deadlock, agents left running, an exception in a rank, platform mismatch).
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How messages travel (the scenario's control_messages and data_messages).
struct MessagePaths {
  bool unshared_control = true;  // control messages skip the max-min system (ControlCouriers.hpp, DirectMessages.hpp)
  bool direct_data = true;       // data messages are timed by quorum's flow model (DirectFlows.hpp)
  double flow_solve_window_s = 0;  // that model's solve window (FlowNetwork::set_solve_window)
  std::size_t route_cache_pairs = 0;  // host pairs a route cache keeps (0: pair_cache_limit() of the platform's hosts)
};

// Returns the simulated time at which the last actor finished. math_threads: threads that run the ranks' math (the
// functions given to Comm::compute), the simulation's own included; 1 runs it inline (RankMathPool.hpp).
double run_ranks(const PlatformConfig& platform, const ComputeModel& compute,
                 const std::function<void(Comm&)>& program, int math_threads = 1, MessagePaths paths = {});

}  // namespace quorum
