#include "sim/simgrid/CommCompletions.hpp"

#include "sim/simgrid/WaitSet.hpp"

#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/s4u/Link.hpp>

#include <stdexcept>
#include <utility>

namespace quorum {

namespace {

CommCompletions* current = nullptr;

// SimGrid's signal is process-wide and cannot be disconnected: it is connected once and forwards to the current
// instance.
void connect_once() {
  static const bool connected = [] {
    simgrid::s4u::Link::on_communication_state_change_cb(
        [](simgrid::kernel::resource::NetworkAction& network_action, simgrid::kernel::resource::Action::State) {
          if (current == nullptr) return;
          // NetworkAction is not in SimGrid's installed headers; it derives from Action alone (3.32's
          // src/kernel/resource/NetworkModel.hpp), so its Action is at its own address.
          const auto& action = reinterpret_cast<const simgrid::kernel::resource::Action&>(network_action);
          const auto state = action.get_state();
          if (state == simgrid::kernel::resource::Action::State::FINISHED ||
              state == simgrid::kernel::resource::Action::State::FAILED)
            current->ended(action.get_activity());
        });
    return true;
  }();
  (void)connected;
}

}  // namespace

CommCompletions::CommCompletions() {
  connect_once();
  current = this;
}

CommCompletions::~CommCompletions() {
  if (current == this) current = nullptr;
}

void CommCompletions::watch(const void* activity, Watch* watch) {
  Ends& ends = pending_[activity];
  Watch*& slot = ends.sender_or_receiver[0] == nullptr ? ends.sender_or_receiver[0] : ends.sender_or_receiver[1];
  if (slot != nullptr) throw std::logic_error("CommCompletions: a communication watched by more than its two ends");
  slot = watch;
}

void CommCompletions::forget(const void* activity, const Watch* watch) {
  const auto it = pending_.find(activity);
  if (it == pending_.end()) return;
  Ends& ends = it->second;
  for (Watch*& slot : ends.sender_or_receiver)
    if (slot == watch) slot = nullptr;
  if (ends.sender_or_receiver[0] == nullptr && ends.sender_or_receiver[1] == nullptr) pending_.erase(it);
}

void CommCompletions::ended(const void* activity) {
  const auto it = pending_.find(activity);
  if (it == pending_.end()) return;
  const Ends ends = it->second;
  pending_.erase(it);
  const std::uint64_t order = ++ended_count_;
  for (Watch* watch : ends.sender_or_receiver)
    if (watch != nullptr) mark_ended(watch, order);
}

void CommCompletions::ended(Watch* sender, Watch* receiver) {
  const std::uint64_t order = ++ended_count_;
  for (Watch* watch : {sender, receiver})
    if (watch != nullptr) mark_ended(watch, order);
}

void CommCompletions::mark_ended(Watch* watch, std::uint64_t order) {
  watch->ended = true;
  watch->order = order;
  if (watch->then != nullptr) {
    const auto then = std::exchange(watch->then, nullptr);
    if (batching_)
      queued_.push_back({nullptr, then});
    else
      then->resume();
  }
  // The actor waiting on it through its waiter (a wait on a few requests) or through a wait set is woken in its turn
  // either way, so that a wait through the set resumes in the order a scan's would (SimComm).
  if (watch->waiter != nullptr) wake_in_turn(*watch->waiter);
  if (watch->set != nullptr) {
    watch->set->ended(watch->slot);
    wake_in_turn(watch->set->wake_up());
  }
}

void CommCompletions::wake_in_turn(WakeUp& waiter) {
  if (batching_)
    queued_.push_back({&waiter, nullptr});
  else
    waiter.wake();
}

void CommCompletions::end_batch() {
  batching_ = false;
  // By index: nothing run here queues more (batching is off), but the vector is read while they run.
  for (std::size_t i = 0; i < queued_.size(); ++i) {
    const Queued q = queued_[i];
    if (q.waiter != nullptr)
      q.waiter->wake();
    else
      q.then->resume();
  }
  queued_.clear();
}

}  // namespace quorum
