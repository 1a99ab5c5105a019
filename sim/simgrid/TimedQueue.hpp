#pragma once
// Events due at simulated dates, run in maestro at their date behind a single SimGrid timer: the earliest one's.
//
// Why: DirectMessages delivered each control message with a timer of its own. At 4,096 ranks that is about 60,000
// timers a simulated step, each a node in SimGrid's timer heap, a type-erased callback on the heap, and an entry in
// a map of the timers to remove should the simulation end first. Here an event costs a place in its date's list.
//
// How: the events of one date wait in one list, in the order they were added, and only the dates are in a heap.
// Messages come in bursts at one instant with a handful of route lengths, so most events join a date already pending
// (eager-SGD at 1,024 ranks: 7,700 a step arrive at a dozen instants); a heap of the events themselves cost each one
// its sift in and out, and a move from its slot, read again after the other ranks' events had evicted it.
//
// Order: events due at one date run in the order they were added (SimGrid's heap gives no order among equal dates),
// and dates in their order.
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <iterator>
#include <span>
#include <utility>
#include <vector>

#include "sim/model/FreeSlots.hpp"
#include "sim/simgrid/KernelAlarm.hpp"
#include "sim/simgrid/KeyTable.hpp"

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
    std::uint32_t& entry = list_of_date_.at(key_of(date));
    if (entry == 0) {
      const std::uint32_t list = take_free_slot(lists_, free_lists_, "TimedQueue: dates due");
      entry = list + 1;
      dates_.push_back({date, list});
      std::push_heap(dates_.begin(), dates_.end(), later);
      if (!alarm_.is_set() || date < alarm_.date()) alarm_.set(date);
    }
    lists_[entry - 1].push_back(std::move(event));
    ++size_;
  }

  std::size_t size() const { return size_; }

 private:
  struct Due {
    double date;
    std::uint32_t list;  // in lists_
  };
  // One list per date, so no two entries have the same date. std::push_heap keeps the greatest first: "later" puts
  // the earliest there.
  static bool later(const Due& a, const Due& b) { return a.date > b.date; }
  // A date's key: its bits, +0 for -0 (equal dates, one list). Never KeyTable::kEmpty, whose bits are a NaN's.
  static std::uint64_t key_of(double date) { return std::bit_cast<std::uint64_t>(date + 0.0); }

  void fire() {
    const double now = simgrid::s4u::Engine::get_clock();
    // Taken out first: an event's run may add events (timers never nest, so fire() is not re-entered). Most often
    // one date is due: its list is swapped in whole.
    running_.clear();
    while (!dates_.empty() && dates_.front().date <= now) {
      std::pop_heap(dates_.begin(), dates_.end(), later);
      const Due due = dates_.back();
      dates_.pop_back();
      list_of_date_.erase(key_of(due.date));
      std::vector<Event>& events = lists_[due.list];
      if (running_.empty()) {
        running_.swap(events);
      } else {
        std::move(events.begin(), events.end(), std::back_inserter(running_));
        events.clear();
      }
      free_lists_.push_back(due.list);
    }
    size_ -= running_.size();
    run_due_(running_);
    running_.clear();
    alarm_.set(dates_.empty() ? KernelAlarm::kNever : dates_.front().date);  // the earliest date left
  }

  std::function<void(std::span<Event>)> run_due_;
  KeyTable<std::uint32_t> list_of_date_;  // by key_of(date): 1 + its list's index in lists_ (0: none yet)
  // By list: its date's events in the order added; a list's storage stays with it for a later date.
  std::vector<std::vector<Event>> lists_;
  std::vector<std::uint32_t> free_lists_;
  std::vector<Due> dates_;      // a heap of the dates pending, one entry each
  std::vector<Event> running_;  // fire()'s, kept allocated
  std::size_t size_ = 0;
  KernelAlarm alarm_;  // last: removed first, before the events it would run
};

}  // namespace quorum
