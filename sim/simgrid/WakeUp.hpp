#pragma once
// An actor asleep until something it waits for happens, woken by another actor or by maestro (a network callback).
// The semaphore is released only while the actor waits, so wakes that come while it runs do not pile up: the actor
// looks at its state before it waits again.
#include <simgrid/s4u/Semaphore.hpp>

namespace quorum {

class WakeUp {
 public:
  // Blocks the calling actor until wake(); rethrows if the actor is killed meanwhile.
  void wait() {
    waiting_ = true;
    try {
      semaphore_->acquire();
    } catch (...) {
      waiting_ = false;
      throw;
    }
  }
  // Wakes the actor if it waits; nothing otherwise.
  void wake() {
    if (!waiting_) return;
    waiting_ = false;
    semaphore_->release();
  }

 private:
  simgrid::s4u::SemaphorePtr semaphore_ = simgrid::s4u::Semaphore::create(0);
  bool waiting_ = false;
};

}  // namespace quorum
