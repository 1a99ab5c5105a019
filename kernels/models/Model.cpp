#include "kernels/models/Model.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/models/ProductBlocking.hpp"

namespace quorum {

Model::Model() { fix_product_blocking(); }

Evaluation evaluate(const Model& model, std::span<const float> params, const Dataset& data, std::int64_t chunk) {
  double loss_sum = 0.0, correct = 0.0;
  bool has_accuracy = false;
  Batch batch;
  std::vector<std::int64_t> idx;
  for (std::int64_t start = 0; start < data.size(); start += chunk) {
    const std::int64_t n = std::min(chunk, data.size() - start);
    idx.resize(static_cast<std::size_t>(n));
    std::iota(idx.begin(), idx.end(), start);
    data.gather(idx, batch);
    const Evaluation e = model.evaluate_batch(params, batch);
    loss_sum += e.loss * static_cast<double>(n);
    if (e.accuracy) {
      has_accuracy = true;
      correct += *e.accuracy * static_cast<double>(n);
    }
  }
  const auto total = static_cast<double>(std::max<std::int64_t>(data.size(), 1));
  Evaluation result{loss_sum / total, std::nullopt};
  if (has_accuracy) result.accuracy = correct / total;
  return result;
}

}  // namespace quorum
