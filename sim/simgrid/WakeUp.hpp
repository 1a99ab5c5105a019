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

namespace quorum {

namespace simgrid_kernel {
// SimGrid 3.32 exports ActorImpl::simcall_answer() but does not install ActorImpl's header; this names the exported
// member function (Itanium ABI: `this` is the first argument) so that it can be called on the opaque pointer that
// s4u::Actor::get_impl() returns. WakeUpTest checks it against real actors.
void answer_simcall(simgrid::kernel::actor::ActorImpl* actor) __asm__(
    "_ZN7simgrid6kernel5actor9ActorImpl14simcall_answerEv");
}  // namespace simgrid_kernel

class WakeUp {
 public:
  // Blocks the calling actor until wake(); rethrows if the actor is killed meanwhile.
  void wait() {
    if (actor_ == nullptr) actor_ = simgrid::s4u::Actor::self()->get_impl();
    waiting_ = true;
    try {
      simcall_run_blocking([] {}, nullptr);  // answered by wake(), in maestro
    } catch (...) {
      waiting_ = false;
      throw;
    }
  }
  // Wakes the actor if it waits; nothing otherwise.
  void wake() {
    if (!waiting_) return;
    waiting_ = false;
    simgrid::kernel::actor::ActorImpl* actor = actor_;
    if (simgrid::s4u::Actor::is_maestro())
      simgrid_kernel::answer_simcall(actor);
    else
      simgrid::kernel::actor::simcall_answered([actor] { simgrid_kernel::answer_simcall(actor); });
  }

 private:
  simgrid::kernel::actor::ActorImpl* actor_ = nullptr;  // the actor that waits (always the same one)
  bool waiting_ = false;
};

}  // namespace quorum
