#pragma once
// Learning rate as a function of a rank's own local step (math.lr_schedule): asynchronous ranks advance
// independently, so each follows the schedule at its own pace.
//   constant  peak_lr throughout
//   step      peak_lr * gamma^(milestones passed): at the listed steps, or every `every` steps (PyTorch's
//             MultiStepLR / StepLR, counted in steps from 0)
//   cosine    from peak_lr at the end of the warmup down to min_lr at step total_steps:
//             min_lr + (peak_lr - min_lr) (1 + cos(pi (s - warmup) / (total - warmup))) / 2
// warmup_steps W > 0 (any kind) multiplies the first W steps by (s + 1) / W: a linear ramp from peak_lr / W at
// step 0 to peak_lr at step W - 1 (Goyal et al. 2017, "gradual warmup"; never 0, so no step is wasted).
#include <cstdint>
#include <string>
#include <vector>

namespace quorum {

struct LrSchedule {
  std::string kind = "constant";         // constant | step | cosine
  double gamma = 0.1;                    // step: factor per milestone
  std::vector<std::int64_t> milestones;  // step: decay at these steps (ascending)...
  std::int64_t every = 0;                // ...or every this many steps (> 0)
  double min_lr = 0.0;                   // cosine: the floor, reached at total_steps
  std::int64_t total_steps = 0;          // cosine: the horizon (the run's iterations)
  std::int64_t warmup_steps = 0;
};

// The learning rate of local step `step` (0-based). constant without warmup returns peak_lr itself.
double learning_rate_at(const LrSchedule& schedule, double peak_lr, std::int64_t step);

}  // namespace quorum
