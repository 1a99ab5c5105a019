#pragma once
// The ranks' proxy math, run off the simulation thread so that a simulation uses every core.
//
// Why it keeps every result bit for bit: a rank's math used to run at the instant its compute() began, before the
// rank's clock advanced. Now compute() hands it here and sleeps its simulated duration, and every actor of that rank
// awaits the math (await) whenever it resumes from SimGrid, before it reads or writes the rank's state: the main
// agent when its compute sleep ends, its progress agents on every return from a Comm call. So no agent of the rank
// ever sees the state while the math runs, and what it sees is what it saw before: the state after the math. Ranks
// share nothing the math writes (models are stateless, each Trainer is its rank's own), and each task is the same
// sequence of floating-point operations on whichever thread it runs.
//
// Simulation thread and workers: SimGrid runs all actors on one thread. A worker thread runs queued tasks in the
// order they came; the simulation thread, when it must await a task that is still running, runs other queued tasks
// meanwhile (they are all needed later), so both cores stay busy while math is waiting.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace quorum {

class RankMathPool {
 public:
  // threads: how many threads work on math in all, the simulation thread included (>= 2; with one thread the math
  // simply runs inline and no pool is made).
  RankMathPool(int ranks, int threads);
  ~RankMathPool();
  RankMathPool(const RankMathPool&) = delete;
  RankMathPool& operator=(const RankMathPool&) = delete;

  // Queues rank's math. The rank must have none pending (every actor of a rank awaits before it computes).
  void submit(int rank, std::function<void()> math);
  // Returns once rank's pending math (if any) has run. Called from the simulation thread, by any actor of the rank,
  // destructors included, so it never throws: what the math threw is kept for take_error.
  void await(int rank) noexcept {
    if (pending_[static_cast<std::size_t>(rank)]) await_pending(rank);
  }
  // What rank's last awaited math threw (null if nothing); the computing actor rethrows it.
  std::exception_ptr take_error(int rank) noexcept { return std::exchange(errors_[static_cast<std::size_t>(rank)], {}); }

 private:
  struct Task {
    std::function<void()> math;
    enum class State { Queued, Running, Done } state = State::Queued;
    std::exception_ptr error;
  };
  using TaskPtr = std::shared_ptr<Task>;

  void await_pending(int rank) noexcept;
  void worker_loop();
  // Takes the first task nobody has started (null if none); the caller holds mutex_.
  TaskPtr claim_queued();
  // Runs a claimed task without the lock, then marks it done.
  void run(const TaskPtr& task);

  std::vector<TaskPtr> pending_;  // per rank; touched by the simulation thread only
  std::vector<std::exception_ptr> errors_;  // per rank, likewise
  std::mutex mutex_;
  std::condition_variable work_ready_;  // workers: a task was queued, or the pool is closing
  std::condition_variable task_done_;   // the simulation thread: a task finished
  std::deque<TaskPtr> queue_;
  bool closing_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace quorum
