#pragma once
// Multinomial logistic regression: logits = x W + b, cross-entropy loss. Parameters: W (dim x classes, column
// major) followed by b (classes).
#include "kernels/models/Model.hpp"
#include "kernels/models/Softmax.hpp"

namespace quorum {

class SoftmaxRegression final : public Model {
 public:
  SoftmaxRegression(std::int64_t dim, int classes) : dim_(dim), classes_(classes) {}
  std::string name() const override { return "softmax"; }
  std::size_t num_params() const override { return static_cast<std::size_t>(dim_ * classes_ + classes_); }
  void init(std::span<float> params, std::uint64_t seed) const override;
  double loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad) const override;
  Evaluation evaluate_batch(std::span<const float> params, const Batch& batch) const override;

 private:
  softmax::Logits logits(std::span<const float> params, const Batch& batch) const;
  std::int64_t dim_;
  int classes_;
};

}  // namespace quorum
