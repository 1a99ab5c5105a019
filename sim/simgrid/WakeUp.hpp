#pragma once
// An actor asleep until something it waits for happens, woken by another actor or by maestro (a network callback).
// Wakes that come while the actor runs are dropped: the actor looks at its state before it waits again.
//
// Why not a SimGrid semaphore: acquiring one is two simcalls (SimGrid 3.32's acquire_async, then the wait on the
// acquisition activity it allocates), and its release finishes that activity. Simulations wake actors this way for
// nearly every message, and the semaphore's path was about 14% of an eager-SGD run at 4,096 ranks (perf). Here the
// actor blocks in one simcall with nothing to do (simcall_run_blocking), and a wake answers that simcall
// (ActorImpl::simcall_answer), which is all a semaphore's release does in the end.
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/simix.hpp>

#include <cstddef>
#include <cstdint>

#include "sim/simgrid/CacheTouch.hpp"

namespace quorum {

namespace simgrid_kernel {
// SimGrid 3.32 exports ActorImpl::simcall_answer() but does not install ActorImpl's header; this names the exported
// member function (Itanium ABI: `this` is the first argument) so that it can be called on the opaque pointer that
// s4u::Actor::get_impl() returns. WakeUpTest checks it against real actors.
void answer_simcall(simgrid::kernel::actor::ActorImpl* actor) __asm__(
    "_ZN7simgrid6kernel5actor9ActorImpl14simcall_answerEv");
// Likewise ActorImpl::is_maestro(), a getter that reads the actor's context (what simcall_answer reads first).
bool actor_is_maestro(const simgrid::kernel::actor::ActorImpl* actor) __asm__(
    "_ZNK7simgrid6kernel5actor9ActorImpl10is_maestroEv");
}  // namespace simgrid_kernel

class WakeUp {
 public:
  // What warm() reads of SimGrid's descriptor of the actor, from its start (WakeUpTest: the descriptor is that large).
  static constexpr std::size_t kDescriptorBytes = 256;

  // Blocks the calling actor until wake(); rethrows if the actor is killed meanwhile.
  void wait() {
    if (actor_ == nullptr) actor_ = simgrid::s4u::Actor::self()->get_impl();
    waiting_ = true;
    frame_ = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    try {
      simcall_run_blocking([] {}, nullptr);  // answered by wake(), in maestro
    } catch (...) {
      waiting_ = false;
      throw;
    }
  }
  // Reads what wake() will read, for a batch of wakes whose misses then overlap (CacheTouch.hpp; DirectMessages'
  // arrivals): SimGrid's descriptor of the actor, whose context pointer and simcall SimGrid 3.32 keeps at bytes 160
  // and 216 (read off simcall_answer's and is_maestro's code: hence its first 256 bytes), the actor's context
  // (through is_maestro), and the first and last line of the stack top that wake() prefetches, so that its pages are
  // in the TLB by then (its prefetches stalled on that miss; prefetched here instead, they stalled here: perf).
  // Nothing if it does not wait.
  void warm() const {
    if (!waiting_) return;
    touch(reinterpret_cast<const void*>(frame_ - kStackBelowFrame));
    touch(reinterpret_cast<const void*>(frame_));
    touch_lines(actor_, kDescriptorBytes);
    (void)simgrid_kernel::actor_is_maestro(actor_);
  }
  // Wakes the actor if it waits; nothing otherwise.
  void wake() {
    if (!waiting_) return;
    waiting_ = false;
    prefetch_stack_top();
    simgrid::kernel::actor::ActorImpl* actor = actor_;
    if (simgrid::s4u::Actor::is_maestro())
      simgrid_kernel::answer_simcall(actor);
    else
      simgrid::kernel::actor::simcall_answered([actor] { simgrid_kernel::answer_simcall(actor); });
  }

 private:
  // The sleeping actor resumes by popping its registers from the top of its stack and returning through SimGrid's
  // frames up to wait()'s: 696 bytes below wait()'s frame with SimGrid 3.32 (measured). Thousands of other actors run
  // between two of its resumes, so those lines are cold by then: at 4,096 ranks eager-SGD resumes 56,000 actors a
  // step, and the first pop, a cache and TLB miss, took 11 to 27% of the step (perf). Fetching them at the wake
  // overlaps the miss with what maestro and the actors before it do until the resume. A prefetch never faults, so
  // a deeper stack elsewhere costs only the benefit.
  static constexpr std::uintptr_t kStackBelowFrame = 12 * kCacheLineBytes;
  void prefetch_stack_top() const {
    for (std::uintptr_t at = frame_ - kStackBelowFrame; at <= frame_; at += kCacheLineBytes)
      __builtin_prefetch(reinterpret_cast<const void*>(at));
  }

  simgrid::kernel::actor::ActorImpl* actor_ = nullptr;  // the actor that waits (always the same one)
  bool waiting_ = false;
  std::uintptr_t frame_ = 0;  // wait()'s frame, where the actor's stack stands while it sleeps
};

}  // namespace quorum
