#pragma once
// Stochastic gradient descent with (heavy-ball) momentum and L2 weight decay:
//   v <- momentum * v + (g + weight_decay * w);   w <- w - lr(step) * v
// lr(step) follows the learning-rate schedule (LrSchedule.hpp) from lr, its peak.
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/optim/LrSchedule.hpp"

namespace quorum {

struct SgdConfig {
  double lr = 0.1;  // the schedule's peak (after any scaling rule)
  double momentum = 0.9;
  double weight_decay = 0.0;
  LrSchedule schedule{};
};

class SgdOptimizer {
 public:
  SgdOptimizer(SgdConfig config, std::size_t num_params) : config_(std::move(config)), velocity_(num_params, 0.0f) {}
  // One update with the gradient of local step `step` (which picks the learning rate).
  void apply(std::span<float> params, std::span<const float> grad, std::int64_t step);
  const SgdConfig& config() const { return config_; }

 private:
  SgdConfig config_;
  std::vector<float> velocity_;
};

}  // namespace quorum
