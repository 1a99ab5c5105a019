#pragma once
// Two-layer perceptron: x -> ReLU(x W1 + b1) -> (. W2 + b2) -> softmax cross-entropy. Parameters, in order:
// W1 (dim x hidden), b1 (hidden), W2 (hidden x classes), b2 (classes); matrices column major.
#include "kernels/models/Model.hpp"

namespace quorum {

class Mlp final : public Model {
 public:
  Mlp(std::int64_t dim, std::int64_t hidden, int classes) : dim_(dim), hidden_(hidden), classes_(classes) {}
  std::string name() const override { return "mlp"; }
  std::size_t num_params() const override {
    return static_cast<std::size_t>(dim_ * hidden_ + hidden_ + hidden_ * classes_ + classes_);
  }
  void init(std::span<float> params, std::uint64_t seed) const override;
  double loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad) const override;
  Evaluation evaluate_batch(std::span<const float> params, const Batch& batch) const override;

 private:
  struct Forward;
  Forward forward(std::span<const float> params, const Batch& batch) const;
  std::int64_t dim_, hidden_;
  int classes_;
};

}  // namespace quorum
