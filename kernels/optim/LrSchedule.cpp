#include "kernels/optim/LrSchedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace quorum {

namespace {

double decayed(const LrSchedule& s, double peak_lr, std::int64_t step) {
  if (s.kind == "step") {
    const std::int64_t passed =
        s.every > 0 ? step / s.every
                    : std::upper_bound(s.milestones.begin(), s.milestones.end(), step) - s.milestones.begin();
    return peak_lr * std::pow(s.gamma, static_cast<double>(passed));
  }
  if (s.kind == "cosine") {
    const auto span = static_cast<double>(std::max<std::int64_t>(1, s.total_steps - s.warmup_steps));
    const double progress = std::clamp(static_cast<double>(step - s.warmup_steps) / span, 0.0, 1.0);
    return s.min_lr + (peak_lr - s.min_lr) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
  }
  return peak_lr;
}

}  // namespace

double learning_rate_at(const LrSchedule& schedule, double peak_lr, std::int64_t step) {
  const double lr = decayed(schedule, peak_lr, step);
  if (step < schedule.warmup_steps)
    return lr * static_cast<double>(std::max<std::int64_t>(step, 0) + 1) / static_cast<double>(schedule.warmup_steps);
  return lr;
}

}  // namespace quorum
