#include "kernels/models/SoftmaxRegression.hpp"

#include "kernels/models/Softmax.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {
using ConstMatrixMap = Eigen::Map<const Eigen::MatrixXf>;
using MatrixMap = Eigen::Map<Eigen::MatrixXf>;
}  // namespace

void SoftmaxRegression::init(std::span<float> params, std::uint64_t seed) const {
  // Small random weights, zero bias.
  Rng rng(seed, Stream::ModelInit);
  const auto weights = static_cast<std::size_t>(dim_ * classes_);
  for (std::size_t i = 0; i < params.size(); ++i) params[i] = i < weights ? static_cast<float>(0.01 * rng.normal()) : 0.0f;
}

softmax::Logits SoftmaxRegression::logits(std::span<const float> params, const Batch& batch) const {
  const ConstMatrixMap w(params.data(), dim_, classes_);
  const Eigen::Map<const Eigen::RowVectorXf> b(params.data() + dim_ * classes_, classes_);
  softmax::Logits p = batch.x * w;
  p.rowwise() += b;
  return p;
}

double SoftmaxRegression::loss_and_gradient(std::span<const float> params, const Batch& batch,
                                            std::span<float> grad) const {
  softmax::Logits p = logits(params, batch);
  const softmax::Totals t = softmax::probabilities_in_place(p, batch.labels);
  // d loss / d logits = (p - onehot) / n
  const auto n = static_cast<float>(batch.size());
  for (Eigen::Index i = 0; i < p.rows(); ++i) p(i, batch.labels[static_cast<std::size_t>(i)]) -= 1.0f;
  p /= n;
  MatrixMap gw(grad.data(), dim_, classes_);
  gw.noalias() = batch.x.transpose() * p;
  Eigen::Map<Eigen::RowVectorXf> gb(grad.data() + dim_ * classes_, classes_);
  gb = p.colwise().sum();
  return t.loss / static_cast<double>(batch.size());
}

Evaluation SoftmaxRegression::evaluate_batch(std::span<const float> params, const Batch& batch) const {
  softmax::Logits p = logits(params, batch);
  const softmax::Totals t = softmax::probabilities_in_place(p, batch.labels);
  const auto n = static_cast<double>(batch.size());
  return {t.loss / n, t.correct / n};
}

}  // namespace quorum
