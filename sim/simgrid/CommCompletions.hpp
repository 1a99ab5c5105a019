#pragma once
// Which of many pending SimGrid communications has ended, learnt from the network model instead of by asking
// SimGrid about each of them.
//
// Why: SimGrid's wait_any registers the waiting actor on every activity it is given and unregisters it from all of
// them when one ends, O(n) per call. A parameter server posts one receive per worker and calls wait_any once per
// push, so every simulated step cost O(P^2): at P = 4,096, async_ps spent more than half its run there.
//
// How: every request's kernel communication is watched from its start. When the network model ends its action
// (SimGrid's Link::on_communication_state_change, in maestro), the request is marked ended, numbered in the order
// the actions ended, and the actor waiting on it, if any, is woken (WakeUp). A wait_any over many
// requests is then a scan of flags. By the time the woken actor runs, SimGrid has finished the communication (the
// data is delivered), so its wait() returns at once.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/simgrid/WakeUp.hpp"

namespace quorum {

class WaitSet;

class CommCompletions {
 public:
  // What runs in maestro when a watched communication ends, instead of waking an actor (an exchange or a schedule
  // progressed without its agent: SimComm's KernelExchange and KernelSchedule).
  class Continuation {
   public:
    virtual void resume() = 0;

   protected:
    ~Continuation() = default;
  };

  // One request's view, owned by the request. 40 bytes, so that a direct message's end (DirectMessages::End) fills
  // one cache line with its shared pointer's counts.
  struct Watch {
    std::uint64_t order = 0;  // when it ended, among all watched communications (1, 2, ...)
    WakeUp* waiter = nullptr;  // the actor waiting on it, if any
    WaitSet* set = nullptr;    // the wait set that holds it, if any (WaitSet.hpp), at `slot`
    Continuation* then = nullptr;  // once: cleared when it runs
    std::uint32_t slot = 0;
    bool ended = false;
    // A direct message's end given up by its request (cancelled or destroyed): a receive still queued gets no
    // message, a message in flight is dropped at its arrival (DirectMessages).
    bool abandoned = false;
  };

  // The latest constructed instance hears the network model (one simulation per process at a time).
  CommCompletions();
  ~CommCompletions();
  CommCompletions(const CommCompletions&) = delete;
  CommCompletions& operator=(const CommCompletions&) = delete;

  // Watches the kernel communication `activity` (simgrid::s4u::Comm::get_impl() of a started communication, not
  // yet ended) on behalf of `watch`, until it ends or forget() is called. Both ends of a communication may watch it.
  void watch(const void* activity, Watch* watch);
  // Stops `watch` watching (its request is cancelled or destroyed before the communication ended).
  void forget(const void* activity, const Watch* watch);

  // Called from the network model: the action of `activity` has ended (finished, or failed when cancelled).
  void ended(const void* activity);
  // Ends a transfer that is no SimGrid communication (DirectMessages): its ends are numbered together, among all.
  void ended(Watch* sender, Watch* receiver);

  // Between these, the wakes and continuations (Watch::then) of the ends marked are queued in the order the ends were
  // marked, and end_batch() runs them in that order: a continuation then starts its next transfers after the whole
  // batch arrived, as the actor it stands for would have, run after it.
  void begin_batch() { batching_ = true; }
  void end_batch();

 private:
  struct Ends {
    Watch* sender_or_receiver[2] = {nullptr, nullptr};
  };
  void mark_ended(Watch* watch, std::uint64_t order);
  // At once, or queued until end_batch() within a batch.
  void wake_in_turn(WakeUp& waiter);
  struct Queued {  // a wake (waiter) or a continuation (then)
    WakeUp* waiter;
    Continuation* then;
  };
  std::unordered_map<const void*, Ends> pending_;
  std::uint64_t ended_count_ = 0;
  bool batching_ = false;
  std::vector<Queued> queued_;
};

}  // namespace quorum
