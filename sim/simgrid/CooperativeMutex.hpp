#pragma once
// A mutex and a condition variable for the actors of SimGrid's sequential engine that make no simcall unless an
// actor must block.
//
// Why: s4u::Mutex makes every lock and unlock a simcall, and every simcall from an actor a switch out of its context
// and back. A 4,096-rank WAGMA step locks its ranks' collective state about 70,000 times: four simcalls in five were
// these, and none of them blocked. The sequential engine runs one actor at a time and switches actors only at
// simcalls, so a critical section that makes none is never entered by another actor while it runs. Here the lock is a
// flag. An actor that finds it held (its holder blocked inside the critical section) waits on a semaphore, and unlock
// hands the lock straight to the first such waiter, in the order they came, as s4u::Mutex does.
//
// What changes against s4u::Mutex: an uncontended lock or unlock no longer lets the other actors ready at that
// instant run first. Actors of one simulated instant may so run in another order; no duration changes.
// Only valid on the sequential engine (contexts/nthreads 1), which run_ranks requires.
#include <simgrid/s4u/Semaphore.hpp>

#include <utility>

namespace quorum {

class CooperativeMutex {
 public:
  void lock() {
    if (!held_) {
      held_ = true;
      return;
    }
    ++waiting_;
    try {
      semaphore(handoff_)->acquire();  // returns holding the lock: unlock handed it over
    } catch (...) {                    // killed while waiting (the simulation is being torn down)
      --waiting_;
      throw;
    }
  }

  void unlock() {
    if (waiting_ == 0) {
      held_ = false;
      return;
    }
    --waiting_;
    handoff_->release();  // held_ stays set: the lock now belongs to the first waiter
  }

 private:
  friend class CooperativeConditionVariable;
  // Made on first need: most mutexes never see contention, and a simulation has one or more per rank.
  static const simgrid::s4u::SemaphorePtr& semaphore(simgrid::s4u::SemaphorePtr& s) {
    if (!s) s = simgrid::s4u::Semaphore::create(0);
    return s;
  }

  bool held_ = false;
  int waiting_ = 0;  // actors blocked in lock()
  simgrid::s4u::SemaphorePtr handoff_;
};

class CooperativeConditionVariable {
 public:
  // Releases `mutex`, blocks until notified, and holds `mutex` again on return. A notification that comes between
  // the release and the block is not lost: the semaphore counts it.
  void wait(CooperativeMutex& mutex) {
    ++waiting_;
    mutex.unlock();
    try {
      CooperativeMutex::semaphore(signal_)->acquire();
    } catch (...) {
      --waiting_;
      throw;
    }
    mutex.lock();
  }

  void notify_one() {
    if (waiting_ == 0) return;
    --waiting_;
    signal_->release();
  }

  // Wakes those waiting now only: a release is a simcall, during which a woken actor may wait again.
  void notify_all() {
    const int woken = std::exchange(waiting_, 0);
    for (int i = 0; i < woken; ++i) signal_->release();
  }

 private:
  int waiting_ = 0;  // actors in wait() not yet notified
  simgrid::s4u::SemaphorePtr signal_;
};

}  // namespace quorum
