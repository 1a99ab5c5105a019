#include "kernels/models/Mlp.hpp"

#include <cmath>

#include "kernels/models/Softmax.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {
using ConstMatrixMap = Eigen::Map<const Eigen::MatrixXf>;
using ConstRowMap = Eigen::Map<const Eigen::RowVectorXf>;
using MatrixMap = Eigen::Map<Eigen::MatrixXf>;
using RowMap = Eigen::Map<Eigen::RowVectorXf>;

struct Layout {
  std::int64_t w1, b1, w2, b2;
};
Layout layout(std::int64_t dim, std::int64_t hidden, int classes) {
  const std::int64_t w1 = 0, b1 = dim * hidden, w2 = b1 + hidden, b2 = w2 + hidden * classes;
  (void)classes;
  return {w1, b1, w2, b2};
}
}  // namespace

void Mlp::init(std::span<float> params, std::uint64_t seed) const {
  // He initialisation for the ReLU layer, Xavier for the output layer; zero biases.
  Rng rng(seed, Stream::ModelInit);
  const Layout l = layout(dim_, hidden_, classes_);
  const double s1 = std::sqrt(2.0 / static_cast<double>(dim_));
  const double s2 = std::sqrt(1.0 / static_cast<double>(hidden_));
  for (auto& p : params) p = 0.0f;
  for (std::int64_t i = l.w1; i < l.b1; ++i) params[static_cast<std::size_t>(i)] = static_cast<float>(s1 * rng.normal());
  for (std::int64_t i = l.w2; i < l.b2; ++i) params[static_cast<std::size_t>(i)] = static_cast<float>(s2 * rng.normal());
}

// Hidden activations (after ReLU) and output logits for a batch.
struct Mlp::Forward {
  RowMatrix hidden;
  softmax::Logits logits;
};

Mlp::Forward Mlp::forward(std::span<const float> params, const Batch& batch) const {
  const Layout l = layout(dim_, hidden_, classes_);
  const ConstMatrixMap w1(params.data() + l.w1, dim_, hidden_);
  const ConstRowMap b1(params.data() + l.b1, hidden_);
  const ConstMatrixMap w2(params.data() + l.w2, hidden_, classes_);
  const ConstRowMap b2(params.data() + l.b2, classes_);
  Forward f;
  f.hidden = batch.x * w1;
  f.hidden.rowwise() += b1;
  f.hidden = f.hidden.cwiseMax(0.0f);
  f.logits = f.hidden * w2;
  f.logits.rowwise() += b2;
  return f;
}

double Mlp::loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad) const {
  const Layout l = layout(dim_, hidden_, classes_);
  Forward f = forward(params, batch);
  softmax::Logits& p = f.logits;
  const softmax::Totals t = softmax::probabilities_in_place(p, batch.labels);
  const auto n = static_cast<float>(batch.size());
  for (Eigen::Index i = 0; i < p.rows(); ++i) p(i, batch.labels[static_cast<std::size_t>(i)]) -= 1.0f;
  p /= n;

  const ConstMatrixMap w2(params.data() + l.w2, hidden_, classes_);
  MatrixMap gw2(grad.data() + l.w2, hidden_, classes_);
  RowMap gb2(grad.data() + l.b2, classes_);
  gw2.noalias() = f.hidden.transpose() * p;
  gb2 = p.colwise().sum();
  RowMatrix dh = p * w2.transpose();
  dh = (f.hidden.array() > 0.0f).select(dh, 0.0f);
  MatrixMap gw1(grad.data() + l.w1, dim_, hidden_);
  RowMap gb1(grad.data() + l.b1, hidden_);
  gw1.noalias() = batch.x.transpose() * dh;
  gb1 = dh.colwise().sum();
  return t.loss / static_cast<double>(batch.size());
}

Evaluation Mlp::evaluate_batch(std::span<const float> params, const Batch& batch) const {
  Forward f = forward(params, batch);
  const softmax::Totals t = softmax::probabilities_in_place(f.logits, batch.labels);
  const auto n = static_cast<double>(batch.size());
  return {t.loss / n, t.correct / n};
}

}  // namespace quorum
