#pragma once
// A small convolutional network, the non-convex proxy that stays cheap: for square one-channel images (Fashion-MNIST's
// 28 x 28),
//   conv 5x5 (c1 channels) -> 2x2 max pool -> ReLU -> conv 5x5 (c2) -> 2x2 max pool -> ReLU -> dense -> softmax CE.
// Convolutions are "valid" with stride 1; pools have stride 2 and drop an odd last row or column. Pooling before the
// ReLU gives the same values as after it (both are monotone) on a quarter of the elements.
//
// Activations are NHWC: a row-major (samples x height x width) x channels matrix, so a convolution is one GEMM of the
// im2col patch matrix (a row per output position, columns (ky, kx, channel)) with the kernel matrix.
// Parameters, in order: K1 (25 x c1), b1 (c1), K2 (25 c1 x c2), b2 (c2), Wd (features x classes), bd (classes);
// matrices column major; a kernel's row is (ky * 5 + kx) * in_channels + channel, Wd's row (y * width + x) * c2 +
// channel of the second pool's output.
#include "kernels/models/Model.hpp"

namespace quorum {

class Cnn final : public Model {
 public:
  static constexpr std::int64_t kKernel = 5;
  static constexpr std::int64_t kMinSide = 16;  // the smallest image that leaves one pixel after the second pool
  // Samples processed at a time. The activations of a slice stay small and in cache (about 0.75 MB at 28 x 28 with
  // 8 and 16 channels; a whole batch of 128 took 25 MB, allocated and page-faulted afresh at every call, which made
  // a step 6 times slower on the development VM than slices of 4).
  static constexpr std::int64_t kSlice = 4;

  // Throws std::invalid_argument if side < kMinSide or a channel count or classes is below 1.
  Cnn(std::int64_t side, std::int64_t conv1_channels, std::int64_t conv2_channels, int classes);
  std::string name() const override { return "cnn"; }
  std::size_t num_params() const override;
  void init(std::span<float> params, std::uint64_t seed) const override;
  // The batch's rows must be side x side images (row-major pixels); throws std::invalid_argument otherwise.
  double loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad) const override;
  Evaluation evaluate_batch(std::span<const float> params, const Batch& batch) const override;

  // Spatial sizes: input, after conv1, after pool1, after conv2, after pool2.
  std::int64_t side() const { return side_; }
  std::int64_t conv1_side() const { return side_ - kKernel + 1; }
  std::int64_t pool1_side() const { return conv1_side() / 2; }
  std::int64_t conv2_side() const { return pool1_side() - kKernel + 1; }
  std::int64_t pool2_side() const { return conv2_side() / 2; }
  std::int64_t conv1_channels() const { return c1_; }
  std::int64_t conv2_channels() const { return c2_; }
  int classes() const { return classes_; }
  // Inputs of the dense layer: pool2_side^2 * c2.
  std::int64_t features() const { return pool2_side() * pool2_side() * c2_; }

 private:
  struct Workspace;
  // Fills w's activations and logits for n samples starting at x.
  void forward(std::span<const float> params, const float* x, std::int64_t n, Workspace& w) const;
  void check_batch(const Batch& batch) const;
  std::int64_t side_, c1_, c2_;
  int classes_;
};

}  // namespace quorum
