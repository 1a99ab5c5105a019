#include "kernels/optim/SgdOptimizer.hpp"

#include <cassert>

namespace quorum {

void SgdOptimizer::apply(std::span<float> params, std::span<const float> grad, std::int64_t step) {
  assert(params.size() == grad.size() && params.size() == velocity_.size());
  const auto lr = static_cast<float>(learning_rate_at(config_.schedule, config_.lr, step));
  const auto mu = static_cast<float>(config_.momentum);
  const auto wd = static_cast<float>(config_.weight_decay);
  for (std::size_t i = 0; i < params.size(); ++i) {
    velocity_[i] = mu * velocity_[i] + grad[i] + wd * params[i];
    params[i] -= lr * velocity_[i];
  }
}

}  // namespace quorum
