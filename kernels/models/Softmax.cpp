#include "kernels/models/Softmax.hpp"

#include <cmath>

namespace quorum::softmax {

Totals probabilities_in_place(Logits& logits, const std::vector<std::int32_t>& labels) {
  Totals t;
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    auto row = logits.row(i);
    Eigen::Index argmax = 0;
    const float max = row.maxCoeff(&argmax);
    row.array() = (row.array() - max).exp();
    const float sum = row.sum();
    row /= sum;
    const auto label = static_cast<Eigen::Index>(labels[static_cast<std::size_t>(i)]);
    t.loss -= std::log(std::max(static_cast<double>(row(label)), 1e-30));
    if (argmax == label) t.correct += 1.0;
  }
  return t;
}

}  // namespace quorum::softmax
