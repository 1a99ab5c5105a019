#pragma once
// One SimGrid kernel timer kept at a date that moves: what a model of quorum's own needs to be woken in maestro at
// its next event (DirectFlows' next flow event, TimedQueue's earliest arrival). Setting the date it already has
// costs nothing; another date replaces the timer. The callback runs in maestro; the alarm is unset when it runs.
#include <simgrid/kernel/Timer.hpp>

#include <functional>
#include <limits>
#include <utility>

namespace quorum {

class KernelAlarm {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  explicit KernelAlarm(std::function<void()> ring) : ring_(std::move(ring)) {}
  // SimGrid's timer queue outlives the engine: a timer still set must not call into a destroyed owner.
  ~KernelAlarm() {
    if (timer_ != nullptr) timer_->remove();
  }
  KernelAlarm(const KernelAlarm&) = delete;
  KernelAlarm& operator=(const KernelAlarm&) = delete;

  // Rings at `date` (kNever: not at all), instead of any date set before.
  void set(double date) {
    if (timer_ != nullptr && date == date_) return;
    if (timer_ != nullptr) timer_->remove();
    timer_ = nullptr;
    date_ = date;
    if (date < kNever) timer_ = simgrid::kernel::timer::Timer::set(date, [this] {
      timer_ = nullptr;
      date_ = kNever;
      ring_();
    });
  }

  bool is_set() const { return timer_ != nullptr; }
  double date() const { return date_; }

 private:
  std::function<void()> ring_;
  simgrid::kernel::timer::Timer* timer_ = nullptr;
  double date_ = kNever;
};

}  // namespace quorum
