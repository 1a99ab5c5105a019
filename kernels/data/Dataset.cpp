#include "kernels/data/Dataset.hpp"

namespace quorum {

InMemoryDataset::InMemoryDataset(std::string name, RowMatrix x, std::vector<std::int32_t> labels, int classes)
    : name_(std::move(name)), x_(std::move(x)), labels_(std::move(labels)), classes_(classes) {}

void InMemoryDataset::gather(std::span<const std::int64_t> indices, Batch& out) const {
  const auto n = static_cast<Eigen::Index>(indices.size());
  out.x.resize(n, x_.cols());
  out.labels.resize(indices.size());
  out.targets.resize(0);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto row = static_cast<Eigen::Index>(indices[static_cast<std::size_t>(i)]);
    out.x.row(i) = x_.row(row);
    out.labels[static_cast<std::size_t>(i)] = labels_[static_cast<std::size_t>(row)];
  }
}

}  // namespace quorum
