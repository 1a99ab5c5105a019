#pragma once
// A training or test set that the proxy models read in mini-batches. Data sets are read-only once built, so all
// ranks of a simulation share one copy.
#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace quorum {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A mini-batch: one sample per row. Classification sets fill labels; regression sets fill targets.
struct Batch {
  RowMatrix x;
  std::vector<std::int32_t> labels;
  Eigen::VectorXf targets;
  std::size_t size() const { return static_cast<std::size_t>(x.rows()); }
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual std::string name() const = 0;
  virtual std::int64_t size() const = 0;
  virtual std::int64_t dim() const = 0;
  // Number of classes, or 0 for a regression set.
  virtual int classes() const = 0;
  // Copies the samples with the given indices into out (rows in the order given).
  virtual void gather(std::span<const std::int64_t> indices, Batch& out) const = 0;
  // Every sample's label, for partitioning by label; empty for a set without labels.
  virtual std::span<const std::int32_t> labels() const { return {}; }
};

// Labelled samples held in memory (Fashion-MNIST).
class InMemoryDataset final : public Dataset {
 public:
  InMemoryDataset(std::string name, RowMatrix x, std::vector<std::int32_t> labels, int classes);
  std::string name() const override { return name_; }
  std::int64_t size() const override { return x_.rows(); }
  std::int64_t dim() const override { return x_.cols(); }
  int classes() const override { return classes_; }
  void gather(std::span<const std::int64_t> indices, Batch& out) const override;
  std::span<const std::int32_t> labels() const override { return labels_; }

 private:
  std::string name_;
  RowMatrix x_;
  std::vector<std::int32_t> labels_;
  int classes_;
};

// Raised when a data set cannot be read; the message names the file and what was wrong.
class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace quorum
