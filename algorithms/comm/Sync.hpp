#pragma once
// Synchronisation objects shared by the agents of one rank (the main agent and its progress agent). Under SimGrid
// they block in simulated time; under MPI they are std::mutex and std::condition_variable_any.
#include <mutex>

namespace quorum {

class Mutex {
 public:
  virtual ~Mutex() = default;
  virtual void lock() = 0;
  virtual void unlock() = 0;
};

class ConditionVariable {
 public:
  virtual ~ConditionVariable() = default;
  // Atomically releases lock and blocks until notified; the lock is held again on return.
  virtual void wait(std::unique_lock<Mutex>& lock) = 0;
  template <typename Predicate>
  void wait(std::unique_lock<Mutex>& lock, Predicate pred) {
    while (!pred()) wait(lock);
  }
  virtual void notify_one() = 0;
  virtual void notify_all() = 0;
};

// A second agent on the same rank (a SimGrid actor on the same host, or a thread under MPI).
class Agent {
 public:
  virtual ~Agent() = default;
  virtual void join() = 0;
};

}  // namespace quorum
