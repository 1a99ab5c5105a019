#include "validation/mpi/RankRuntime.hpp"

#include <mpi.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "sim/model/SlowLinkCost.hpp"
#include "validation/mpi/FatalSignals.hpp"
#include "validation/mpi/MpiEnvironment.hpp"
#include "validation/mpi/MpiError.hpp"
#include "validation/mpi/WaitMode.hpp"

namespace quorum::mpi {

RankRuntime::RankRuntime(MpiWorld& world, ComputeModel compute, MpiSettings settings)
    : world_(world),
      compute_(std::move(compute)),
      settings_(std::move(settings)),
      wait_mode_(resolve_wait_mode(settings_.progress, world.ranks_on_host(), usable_cores())),
      engine_(std::make_shared<ProgressEngine>(world.messages(), world.data(), world.tag_ub(),
                                               settings_.poll_interval_s, wait_mode_)) {
  report_current_step(-1);
}

RankRuntime::~RankRuntime() {
  native_.reset();
  engine_->shutdown();
}

void RankRuntime::start_clock() {
  check(MPI_Barrier(world_.control()), "MPI_Barrier (start of the run)");
  start_wtime_ = MPI_Wtime();
}

void RankRuntime::quiet_barrier(const char* what) {
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(world_.control(), &r), what);
  engine_->wait(engine_->track(r));
}

double RankRuntime::now() const { return MPI_Wtime() - start_wtime_; }

void RankRuntime::sleep_until(double t) const {
  // An absolute deadline on CLOCK_MONOTONIC, so an interrupted or late wake-up does not add up over steps.
  const double remaining = t - now();
  if (remaining <= 0) return;
  engine_->kick();  // messages this agent posted keep moving while it sleeps
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  const double whole = std::floor(remaining);
  ts.tv_sec += static_cast<time_t>(whole);
  ts.tv_nsec += static_cast<long>((remaining - whole) * 1e9);
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000L;
  }
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

void RankRuntime::set_activity(Activity a) {
  activity_ = static_cast<int>(a);
  activity_since_ = now();
}

RankRuntime::WaitScope::WaitScope(RankRuntime& rt, bool track) : rt_(track ? &rt : nullptr) {
  if (rt_) rt_->set_activity(Activity::Waiting);
}

RankRuntime::WaitScope::~WaitScope() {
  if (rt_) rt_->set_activity(Activity::Running);
}

double RankRuntime::compute(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                            const std::function<void(std::size_t)>& after_part) {
  engine_->kick();  // messages this agent posted keep moving while it computes
  const double t0 = now();
  current_step_ = step;
  step_started_at_ = t0;
  report_current_step(step);
  set_activity(Activity::Computing);
  struct Done {
    RankRuntime* rt;
    ~Done() { rt->set_activity(Activity::Running); }
  } done{this};
  const FaultInjection& fault = settings_.fault;
  if (fault.rank == rank() && fault.step == step) {
    if (fault.kind == "kill") ::raise(SIGKILL);
    if (fault.kind == "throw")
      throw std::runtime_error("fault injected by the scenario (mpi.fault) in step " + std::to_string(step));
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // hang
  }
  if (math) math();
  const double math_s = now() - t0;
  // What is slept after the math starts at `from` and lasts `span`: the rest of the modelled duration (emulate), or
  // the straggler delay after the real math.
  double from, span;
  double overrun = 0;
  if (settings_.emulate()) {
    const double modelled = compute_.duration(rank(), step);
    from = t0;
    span = modelled;
    overrun = std::max(0.0, math_s - modelled);
  } else {
    from = t0 + math_s;
    span = compute_.delay(rank(), step, math_s);
  }
  const double target = from + span;
  const double before_sleep = now();
  // In parts (one part for compute()): the same sleep, in the simulator's order, each part's continuation between
  // them. Emulated, part i ends where the simulated one does; with real math the parts spread the delay.
  double cumulative = 0;
  for (std::size_t i = 0; i < fractions.size(); ++i) {
    cumulative += fractions[i];
    sleep_until(i + 1 == fractions.size() ? target : from + span * cumulative);
    if (after_part) after_part(i);
  }
  const double end = now();
  std::lock_guard lock(stats_mutex_);
  ++stats_.steps;
  stats_.math_s += math_s;
  stats_.injected_s += end - before_sleep;
  if (target > before_sleep) {
    stats_.overshoot_s += end - target;
    stats_.max_overshoot_s = std::max(stats_.max_overshoot_s, end - target);
  }
  if (overrun > 0) {
    ++stats_.overruns;
    stats_.overrun_s += overrun;
  }
  return end - t0;
}

double RankRuntime::link_factor(int of_rank) const {
  // Before its first step a rank reads step 0, as the simulator sets the links before any transfer.
  return compute_.stragglers().link_factor(of_rank, std::max<std::int64_t>(current_step_.load(), 0));
}

double RankRuntime::send_hold_s(int dst, double bytes) const {
  if (!compute_.stragglers().slows_links()) return 0.0;
  return slow_link_extra_s(std::max(link_factor(rank()), link_factor(dst)), bytes, slow_link_Bps_);
}

double RankRuntime::native_allreduce_hold_s(int group, double bytes) const {
  if (!compute_.stragglers().slows_links()) return 0.0;
  return slow_link_allreduce_extra_s(link_factor(rank()), group, bytes, slow_link_Bps_);
}

ComputeStats RankRuntime::compute_stats() const {
  std::lock_guard lock(stats_mutex_);
  return stats_;
}

void RankRuntime::step_done(std::int64_t step) {
  std::int64_t done = steps_done_.load();
  while (step + 1 > done && !steps_done_.compare_exchange_weak(done, step + 1)) {
  }
}

void RankRuntime::fail(const std::string& agent, const std::string& what) const {
  std::string where = "rank " + std::to_string(rank());
  if (!agent.empty()) where += " (agent " + agent + ")";
  const std::int64_t step = current_step();
  where += step >= 0 ? ", step " + std::to_string(step) : ", before its first step";
  abort_job("quorum: " + where + ": " + what + "; ending the job", 3);
}

void RankRuntime::shutdown() {
  native_.reset();
  engine_->shutdown();
}

}  // namespace quorum::mpi
