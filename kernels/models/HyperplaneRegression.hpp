#pragma once
// Linear regression with mean squared error: the "one-layer MLP" of the eager-SGD paper's hyperplane experiment
// (8,193 parameters for 8,192 dimensions). Parameters: w (dim) then the intercept.
#include "kernels/models/Model.hpp"

namespace quorum {

class HyperplaneRegression final : public Model {
 public:
  explicit HyperplaneRegression(std::int64_t dim) : dim_(dim) {}
  std::string name() const override { return "hyperplane"; }
  std::size_t num_params() const override { return static_cast<std::size_t>(dim_ + 1); }
  void init(std::span<float> params, std::uint64_t seed) const override;
  double loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad) const override;
  Evaluation evaluate_batch(std::span<const float> params, const Batch& batch) const override;

 private:
  std::int64_t dim_;
};

}  // namespace quorum
