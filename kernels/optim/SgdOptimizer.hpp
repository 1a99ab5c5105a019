#pragma once
// Stochastic gradient descent with (heavy-ball) momentum and L2 weight decay:
//   v <- momentum * v + (g + weight_decay * w);   w <- w - lr * v
#include <span>
#include <vector>

namespace quorum {

struct SgdConfig {
  double lr = 0.1;
  double momentum = 0.9;
  double weight_decay = 0.0;
};

class SgdOptimizer {
 public:
  SgdOptimizer(SgdConfig config, std::size_t num_params) : config_(config), velocity_(num_params, 0.0f) {}
  void apply(std::span<float> params, std::span<const float> grad);
  const SgdConfig& config() const { return config_; }

 private:
  SgdConfig config_;
  std::vector<float> velocity_;
};

}  // namespace quorum
