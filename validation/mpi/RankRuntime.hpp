#pragma once
// Everything one rank's agents share during a run on MPI: the communicators, the progress engine, the clock (MPI_Wtime
// from a common barrier), the emulation of compute time, the native collectives, the agents' bookkeeping, and the
// progress the watchdog reports.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "sim/model/ComputeModel.hpp"
#include "sim/model/MpiSettings.hpp"
#include "validation/mpi/MpiWorld.hpp"
#include "validation/mpi/NativeAllreduce.hpp"
#include "validation/mpi/ProgressEngine.hpp"

namespace quorum::mpi {

// How compute() spent its time, summed over the rank's steps.
struct ComputeStats {
  std::int64_t steps = 0;
  double math_s = 0;          // the proxy's real math
  double injected_s = 0;      // slept to reach the modelled duration (emulate) or the straggler delay (real)
  double overshoot_s = 0;     // sleeps ended this much later than asked, in total
  double max_overshoot_s = 0;
  std::int64_t overruns = 0;  // emulate: steps whose math alone took longer than the modelled duration
  double overrun_s = 0;       // by this much, in total
};

class RankRuntime {
 public:
  RankRuntime(MpiWorld& world, ComputeModel compute, MpiSettings settings);
  ~RankRuntime();
  RankRuntime(const RankRuntime&) = delete;
  RankRuntime& operator=(const RankRuntime&) = delete;

  int rank() const { return world_.rank(); }
  int size() const { return world_.size(); }
  MpiWorld& world() { return world_; }
  const std::shared_ptr<ProgressEngine>& engine() const { return engine_; }
  const MpiSettings& settings() const { return settings_; }
  // mpi.progress as resolved on this host.
  ProgressEngine::WaitMode wait_mode() const { return wait_mode_; }
  NativeAllreduce* native() { return native_.get(); }
  void set_native(std::unique_ptr<NativeAllreduce> native) { native_ = std::move(native); }

  // Collective: a barrier, then every rank's clock starts at 0.
  void start_clock();
  // Collective over the control communicator: a barrier waited for through the progress engine, so a rank that
  // arrives early waits as any agent does (mpi.progress) instead of spinning inside MPI_Barrier.
  void quiet_barrier(const char* what);
  double now() const;
  void sleep_until(double t) const;

  // One step's compute: the math, then the sleep the settings prescribe (MpiSettings::compute); fault injection.
  // Returns the measured duration.
  // The sleep is taken in the parts `fractions` (at least one; Comm::compute passes {1}) and after_part(i), if any,
  // runs after part i.
  double compute(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                 const std::function<void(std::size_t)>& after_part);
  ComputeStats compute_stats() const;

  // The slow_link imbalance on MPI: the bandwidth of a rank's own link in the scenario's platform model
  // (rank_link_bandwidth_Bps), which the extra transfer times below are computed with.
  void set_slow_link_bandwidth(double link_Bps) { slow_link_Bps_ = link_Bps; }
  // How long a send of `bytes` to dst is held back: the extra transfer time of the slower of this rank's and dst's
  // links, their factors read at this rank's current step (SlowLinkCost.hpp). 0 without slow_link.
  double send_hold_s(int dst, double bytes) const;
  // How much later this rank enters a native allreduce of `group` members because its own link is slow.
  double native_allreduce_hold_s(int group, double bytes) const;
  // A rank's slow-link factor at this rank's current step (1: not slowed).
  double link_factor(int of_rank) const;

  // Progress, as the watchdog reports it.
  enum class Activity { Running = 0, Computing = 1, Waiting = 2 };
  // What the main agent is doing: its own code, compute(), or blocked waiting for communication.
  Activity activity() const { return static_cast<Activity>(activity_.load()); }
  double activity_since() const { return activity_since_.load(); }
  // Marks the main agent blocked in a wait for the scope's lifetime (agents other than "main" are not tracked).
  class WaitScope {
   public:
    WaitScope(RankRuntime& rt, bool track);
    ~WaitScope();
    WaitScope(const WaitScope&) = delete;
    WaitScope& operator=(const WaitScope&) = delete;

   private:
    RankRuntime* rt_;
  };
  std::int64_t current_step() const { return current_step_.load(); }
  double step_started_at() const { return step_started_at_.load(); }
  std::int64_t steps_done() const { return steps_done_.load(); }
  void step_done(std::int64_t step);

  // Agents (threads) started by spawn() and not yet finished.
  void agent_started() { ++live_agents_; }
  void agent_finished() { --live_agents_; }
  int live_agents() const { return live_agents_.load(); }

  // An agent of this rank failed: the other ranks would wait for it forever, so the job ends here with a message
  // naming the rank, the agent and the step.
  [[noreturn]] void fail(const std::string& agent, const std::string& what) const;

  // After the rank's program returned: cancels pending receives and stops the progress thread.
  void shutdown();

 private:
  MpiWorld& world_;
  ComputeModel compute_;
  MpiSettings settings_;
  ProgressEngine::WaitMode wait_mode_;
  std::shared_ptr<ProgressEngine> engine_;
  std::unique_ptr<NativeAllreduce> native_;
  double slow_link_Bps_ = 0;
  double start_wtime_ = 0;
  void set_activity(Activity a);
  std::atomic<int> activity_{0};
  std::atomic<double> activity_since_{0};
  std::atomic<std::int64_t> current_step_{-1};
  std::atomic<double> step_started_at_{0};
  std::atomic<std::int64_t> steps_done_{0};
  std::atomic<int> live_agents_{0};
  mutable std::mutex stats_mutex_;
  ComputeStats stats_;
};

}  // namespace quorum::mpi
