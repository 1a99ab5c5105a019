#pragma once
// Events due at simulated dates, run in maestro at their date behind a single SimGrid timer: the earliest one's.
//
// Why: DirectMessages delivered each control message with a timer of its own. At 4,096 ranks that is about 60,000
// timers a simulated step, each a node in SimGrid's timer heap, a type-erased callback on the heap, and an entry in
// a map of the timers to remove should the simulation end first. Here an event costs a slot and a heap entry of its
// own, and SimGrid's timer is moved only when the earliest date changes.
//
// Order: events due at one date run in the order they were added (SimGrid's heap gives no order among equal dates).
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "sim/model/FreeSlots.hpp"
#include "sim/simgrid/KernelAlarm.hpp"

namespace quorum {

template <typename Event>
class TimedQueue {
 public:
  // `run_due` is called in maestro at a date with the events due then, in the order they were added: in one call
  // rather than one per event because at 4,096 ranks hundreds of messages arrive at one instant, and their owner
  // fetches what they touch across the batch (DirectMessages).
  explicit TimedQueue(std::function<void(std::span<Event>)> run_due)
      : run_due_(std::move(run_due)), alarm_([this] { fire(); }) {}
  TimedQueue(const TimedQueue&) = delete;
  TimedQueue& operator=(const TimedQueue&) = delete;

  void add(double date, Event event) {
    const std::uint32_t slot = take_free_slot(events_, free_, "TimedQueue: events due");
    events_[slot] = std::move(event);
    heap_.push_back({date, next_seq_++, slot});
    std::push_heap(heap_.begin(), heap_.end(), later);
    if (!alarm_.is_set() || date < alarm_.date()) alarm_.set(date);
  }

  std::size_t size() const { return heap_.size(); }

 private:
  struct Due {
    double date;
    std::uint64_t seq;  // ties: the order of add()
    std::uint32_t slot;
  };
  // std::push_heap keeps the greatest first: "later" puts the earliest there.
  static bool later(const Due& a, const Due& b) { return a.date != b.date ? a.date > b.date : a.seq > b.seq; }

  void fire() {
    const double now = simgrid::s4u::Engine::get_clock();
    // Taken out first: an event's run may add events (timers never nest, so fire() is not re-entered).
    running_.clear();
    while (!heap_.empty() && heap_.front().date <= now) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      const std::uint32_t slot = heap_.back().slot;
      heap_.pop_back();
      running_.push_back(std::move(events_[slot]));
      events_[slot] = Event{};
      free_.push_back(slot);
    }
    run_due_(running_);
    running_.clear();
    alarm_.set(heap_.empty() ? KernelAlarm::kNever : heap_.front().date);  // the earliest date left
  }

  std::function<void(std::span<Event>)> run_due_;
  std::vector<Event> events_;  // by slot
  std::vector<std::uint32_t> free_;
  std::vector<Due> heap_;
  std::vector<Event> running_;  // fire()'s, kept allocated
  std::uint64_t next_seq_ = 0;
  KernelAlarm alarm_;  // last: removed first, before the events it would run
};

}  // namespace quorum
