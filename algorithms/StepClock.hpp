#pragma once
// Per-step bookkeeping shared by all algorithms: start time, compute charged, communication and wait time.
#include <functional>
#include <span>
#include <string>

#include "algorithms/RankContext.hpp"

namespace quorum {

class StepClock {
 public:
  explicit StepClock(RankContext& ctx) : ctx_(ctx) {}

  void begin(std::int64_t step) {
    record_ = StepRecord{ctx_.comm.rank(), step, ctx_.comm.now(), 0, 0, 0};
    blocked_at_begin_ = ctx_.comm.blocked_seconds();
    compute_start_ = record_.start_s;
  }
  // The step's computation: runs the math and charges the modelled duration.
  template <typename Math>
  void compute(Math&& math) {
    compute_start_ = ctx_.comm.now();
    record_.compute_s = ctx_.comm.compute(record_.step, std::forward<Math>(math));
  }
  // The same, charged in parts (Comm::compute_in_parts): after_part(i) runs once part i has been charged.
  template <typename Math>
  void compute_in_parts(Math&& math, std::span<const double> fractions,
                        const std::function<void(std::size_t)>& after_part) {
    compute_start_ = ctx_.comm.now();
    record_.compute_s = ctx_.comm.compute_in_parts(record_.step, std::forward<Math>(math), fractions, after_part);
  }
  void end() {
    const double now = ctx_.comm.now();
    record_.comm_s = now - record_.start_s - record_.compute_s;
    record_.wait_s = ctx_.comm.blocked_seconds() - blocked_at_begin_;
    // Spans before step_done: the recorder attributes spans to the step a rank has not finished yet.
    if (ctx_.observer.tracing()) {
      const std::string step = "step " + std::to_string(record_.step);
      const double compute_end = compute_start_ + record_.compute_s;
      if (compute_start_ > record_.start_s)
        ctx_.observer.span({record_.rank, 0, "comm", step, record_.start_s, compute_start_});
      ctx_.observer.span({record_.rank, 0, "compute", step, compute_start_, compute_end});
      if (now > compute_end) ctx_.observer.span({record_.rank, 0, "comm", step, compute_end, now});
    }
    ctx_.observer.step_done(record_);
  }

 private:
  RankContext& ctx_;
  StepRecord record_{};
  double blocked_at_begin_ = 0;
  double compute_start_ = 0;
};

}  // namespace quorum
