#pragma once
// The hyperplane-regression data of the eager-SGD paper (002 sec. 7.2.1): y = a0 x0 + ... + a_{d-1} x_{d-1} + noise.
// Samples are generated on demand from the seed rather than stored: 32,768 points of 8,192 dimensions would take
// a gigabyte per process.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/data/Dataset.hpp"

namespace quorum {

struct HyperplaneSpec {
  std::int64_t dim = 8192;          // paper: 8,192
  std::int64_t train_size = 32768;  // paper: 32,768 points
  std::int64_t test_size = 4096;
  double noise_sd = 1.0;
  std::uint64_t seed = 1;
};

class SyntheticHyperplane final : public Dataset {
 public:
  // offset: index of this split's first sample in the common sample sequence (train 0, test train_size).
  SyntheticHyperplane(const HyperplaneSpec& spec, std::int64_t offset, std::int64_t size, std::string name);
  std::string name() const override { return name_; }
  std::int64_t size() const override { return size_; }
  std::int64_t dim() const override { return spec_.dim; }
  int classes() const override { return 0; }
  void gather(std::span<const std::int64_t> indices, Batch& out) const override;

  const std::vector<float>& coefficients() const { return coefficients_; }

 private:
  HyperplaneSpec spec_;
  std::int64_t offset_, size_;
  std::string name_;
  std::vector<float> coefficients_;  // a_0..a_{d-1}, then the intercept
};

struct HyperplaneData {
  std::shared_ptr<const Dataset> train;
  std::shared_ptr<const Dataset> test;
};
HyperplaneData make_hyperplane_data(const HyperplaneSpec& spec);

}  // namespace quorum
