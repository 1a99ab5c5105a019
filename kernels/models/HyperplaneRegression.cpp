#include "kernels/models/HyperplaneRegression.hpp"

namespace quorum {

void HyperplaneRegression::init(std::span<float> params, std::uint64_t /*seed*/) const {
  // Zero start: the loss then begins at the variance of the targets, which makes "loss fell by 10x" meaningful.
  for (auto& p : params) p = 0.0f;
}

double HyperplaneRegression::loss_and_gradient(std::span<const float> params, const Batch& batch,
                                               std::span<float> grad) const {
  const Eigen::Map<const Eigen::VectorXf> w(params.data(), dim_);
  const float b = params[static_cast<std::size_t>(dim_)];
  Eigen::VectorXf r = batch.x * w;
  r.array() += b - batch.targets.array();
  const auto n = static_cast<float>(batch.size());
  Eigen::Map<Eigen::VectorXf> gw(grad.data(), dim_);
  gw.noalias() = (2.0f / n) * (batch.x.transpose() * r);
  grad[static_cast<std::size_t>(dim_)] = 2.0f / n * r.sum();
  return static_cast<double>(r.squaredNorm()) / static_cast<double>(batch.size());
}

Evaluation HyperplaneRegression::evaluate_batch(std::span<const float> params, const Batch& batch) const {
  const Eigen::Map<const Eigen::VectorXf> w(params.data(), dim_);
  Eigen::VectorXf r = batch.x * w;
  r.array() += params[static_cast<std::size_t>(dim_)] - batch.targets.array();
  return {static_cast<double>(r.squaredNorm()) / static_cast<double>(batch.size()), std::nullopt};
}

}  // namespace quorum
