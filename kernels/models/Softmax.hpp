#pragma once
// Shared softmax cross-entropy helpers for the classification models.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace quorum::softmax {

using Logits = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Turns logits into probabilities in place (row-wise, max-shifted) and returns the summed cross-entropy loss and the
// number of correct argmax predictions.
struct Totals {
  double loss = 0.0;
  double correct = 0.0;
};
Totals probabilities_in_place(Logits& logits, const std::vector<std::int32_t>& labels);

}  // namespace quorum::softmax
