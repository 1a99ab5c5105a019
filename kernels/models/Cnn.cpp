#include "kernels/models/Cnn.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/models/ConvolutionOps.hpp"
#include "kernels/models/Softmax.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {
using ConstMatrixMap = Eigen::Map<const Eigen::MatrixXf>;
using ConstRowMap = Eigen::Map<const Eigen::RowVectorXf>;
using ConstRowMatrixMap = Eigen::Map<const RowMatrix>;
using MatrixMap = Eigen::Map<Eigen::MatrixXf>;
using RowMap = Eigen::Map<Eigen::RowVectorXf>;

constexpr std::int64_t kTaps = Cnn::kKernel * Cnn::kKernel;

// Offsets of the parameter blocks in the flat vector.
struct Layout {
  std::int64_t k1, b1, k2, b2, wd, bd, end;
};
Layout layout(std::int64_t c1, std::int64_t c2, std::int64_t features, int classes) {
  Layout l{};
  l.k1 = 0;
  l.b1 = l.k1 + kTaps * c1;
  l.k2 = l.b1 + c1;
  l.b2 = l.k2 + kTaps * c1 * c2;
  l.wd = l.b2 + c2;
  l.bd = l.wd + features * classes;
  l.end = l.bd + classes;
  return l;
}
}  // namespace

Cnn::Cnn(std::int64_t side, std::int64_t conv1_channels, std::int64_t conv2_channels, int classes)
    : side_(side), c1_(conv1_channels), c2_(conv2_channels), classes_(classes) {
  if (side_ < kMinSide)
    throw std::invalid_argument("cnn: images must be at least " + std::to_string(kMinSide) + " pixels wide, got " +
                                std::to_string(side_));
  if (c1_ < 1 || c2_ < 1 || classes_ < 1)
    throw std::invalid_argument("cnn: channel counts and classes must be at least 1");
}

std::size_t Cnn::num_params() const { return static_cast<std::size_t>(layout(c1_, c2_, features(), classes_).end); }

void Cnn::init(std::span<float> params, std::uint64_t seed) const {
  // He initialisation for the layers followed by a ReLU, Xavier for the output layer; zero biases.
  Rng rng(seed, Stream::ModelInit);
  const Layout l = layout(c1_, c2_, features(), classes_);
  auto fill = [&](std::int64_t from, std::int64_t to, double sd) {
    for (std::int64_t i = from; i < to; ++i) params[static_cast<std::size_t>(i)] = static_cast<float>(sd * rng.normal());
  };
  std::fill(params.begin(), params.end(), 0.0f);
  fill(l.k1, l.b1, std::sqrt(2.0 / static_cast<double>(kTaps)));
  fill(l.k2, l.b2, std::sqrt(2.0 / static_cast<double>(kTaps * c1_)));
  fill(l.wd, l.bd, std::sqrt(1.0 / static_cast<double>(features())));
}

// One slice's activations and gradients, reused slice after slice within a call: resizing a matrix to the size it
// already has does not reallocate, and the model keeps no state between calls.
struct Cnn::Workspace {
  RowMatrix patches1, pooled1, patches2, pooled2;  // pooled: after the max pool and the ReLU, NHWC
  std::vector<std::int32_t> argmax1, argmax2, labels;
  RowMatrix z, d_pooled2, d_patches2, d_pooled1;
  softmax::Logits logits;
};

void Cnn::check_batch(const Batch& batch) const {
  if (batch.x.cols() != side_ * side_)
    throw std::invalid_argument("cnn: expects " + std::to_string(side_ * side_) + " pixels per sample, got " +
                                std::to_string(batch.x.cols()));
}

void Cnn::forward(std::span<const float> params, const float* x, std::int64_t n, Workspace& w) const {
  const Layout l = layout(c1_, c2_, features(), classes_);
  const ConstMatrixMap k1(params.data() + l.k1, kTaps, c1_);
  const ConstRowMap b1(params.data() + l.b1, c1_);
  const ConstMatrixMap k2(params.data() + l.k2, kTaps * c1_, c2_);
  const ConstRowMap b2(params.data() + l.b2, c2_);
  const ConstMatrixMap wd(params.data() + l.wd, features(), classes_);
  const ConstRowMap bd(params.data() + l.bd, classes_);
  conv::im2col(x, {n, side_, 1}, kKernel, w.patches1);
  w.z.noalias() = w.patches1 * k1;
  w.z.rowwise() += b1;
  conv::max_pool_relu(w.z, {n, conv1_side(), c1_}, w.pooled1, w.argmax1);
  conv::im2col(w.pooled1.data(), {n, pool1_side(), c1_}, kKernel, w.patches2);
  w.z.noalias() = w.patches2 * k2;
  w.z.rowwise() += b2;
  conv::max_pool_relu(w.z, {n, conv2_side(), c2_}, w.pooled2, w.argmax2);
  // The NHWC output of the second pool, read as one row of features per sample.
  const ConstRowMatrixMap features_by_sample(w.pooled2.data(), n, features());
  w.logits.noalias() = features_by_sample * wd;
  w.logits.rowwise() += bd;
}

double Cnn::loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad) const {
  check_batch(batch);
  const auto n = static_cast<std::int64_t>(batch.size());
  const Layout l = layout(c1_, c2_, features(), classes_);
  const ConstMatrixMap k2(params.data() + l.k2, kTaps * c1_, c2_);
  const ConstMatrixMap wd(params.data() + l.wd, features(), classes_);
  MatrixMap g_k1(grad.data() + l.k1, kTaps, c1_), g_k2(grad.data() + l.k2, kTaps * c1_, c2_),
      g_wd(grad.data() + l.wd, features(), classes_);
  RowMap g_b1(grad.data() + l.b1, c1_), g_b2(grad.data() + l.b2, c2_), g_bd(grad.data() + l.bd, classes_);
  std::fill(grad.begin(), grad.end(), 0.0f);
  double loss = 0.0;
  Workspace w;
  // Slice by slice, each adding its share of the batch's mean gradient.
  for (std::int64_t start = 0; start < n; start += kSlice) {
    const std::int64_t m = std::min(kSlice, n - start);
    forward(params, batch.x.data() + start * batch.x.cols(), m, w);
    w.labels.assign(batch.labels.begin() + start, batch.labels.begin() + start + m);
    softmax::Logits& p = w.logits;
    loss += softmax::probabilities_in_place(p, w.labels).loss;
    for (Eigen::Index i = 0; i < p.rows(); ++i) p(i, w.labels[static_cast<std::size_t>(i)]) -= 1.0f;
    p /= static_cast<float>(n);

    // Dense layer.
    const ConstRowMatrixMap features_by_sample(w.pooled2.data(), m, features());
    g_wd.noalias() += features_by_sample.transpose() * p;
    g_bd += p.colwise().sum();
    w.d_pooled2.resize(m * pool2_side() * pool2_side(), c2_);  // NHWC, the same memory as m x features
    Eigen::Map<RowMatrix>(w.d_pooled2.data(), m, features()).noalias() = p * wd.transpose();

    // Second convolution.
    conv::max_pool_relu_backward(w.d_pooled2, w.pooled2, w.argmax2, {m, conv2_side(), c2_}, w.z);
    g_k2.noalias() += w.patches2.transpose() * w.z;
    g_b2 += w.z.colwise().sum();
    w.d_patches2.noalias() = w.z * k2.transpose();
    conv::col2im(w.d_patches2, {m, pool1_side(), c1_}, kKernel, w.d_pooled1);

    // First convolution (the input needs no gradient).
    conv::max_pool_relu_backward(w.d_pooled1, w.pooled1, w.argmax1, {m, conv1_side(), c1_}, w.z);
    g_k1.noalias() += w.patches1.transpose() * w.z;
    g_b1 += w.z.colwise().sum();
  }
  return loss / static_cast<double>(n);
}

Evaluation Cnn::evaluate_batch(std::span<const float> params, const Batch& batch) const {
  check_batch(batch);
  const auto n = static_cast<std::int64_t>(batch.size());
  softmax::Totals total;
  Workspace w;
  for (std::int64_t start = 0; start < n; start += kSlice) {
    const std::int64_t m = std::min(kSlice, n - start);
    forward(params, batch.x.data() + start * batch.x.cols(), m, w);
    w.labels.assign(batch.labels.begin() + start, batch.labels.begin() + start + m);
    const softmax::Totals t = softmax::probabilities_in_place(w.logits, w.labels);
    total.loss += t.loss;
    total.correct += t.correct;
  }
  const auto count = static_cast<double>(std::max<std::int64_t>(n, 1));
  return {total.loss / count, total.correct / count};
}

}  // namespace quorum
