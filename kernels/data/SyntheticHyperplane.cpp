#include "kernels/data/SyntheticHyperplane.hpp"

#include "kernels/random/SeedStream.hpp"

namespace quorum {

SyntheticHyperplane::SyntheticHyperplane(const HyperplaneSpec& spec, std::int64_t offset, std::int64_t size,
                                         std::string name)
    : spec_(spec), offset_(offset), size_(size), name_(std::move(name)) {
  Rng rng(spec.seed, Stream::SyntheticData, ~std::uint64_t{0}, 1);
  coefficients_.resize(static_cast<std::size_t>(spec.dim) + 1);
  for (auto& a : coefficients_) a = static_cast<float>(rng.normal());
}

void SyntheticHyperplane::gather(std::span<const std::int64_t> indices, Batch& out) const {
  const auto n = static_cast<Eigen::Index>(indices.size());
  const auto d = static_cast<Eigen::Index>(spec_.dim);
  out.x.resize(n, d);
  out.targets.resize(n);
  out.labels.clear();
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto sample = static_cast<std::uint64_t>(offset_ + indices[static_cast<std::size_t>(i)]);
    Rng rng(spec_.seed, Stream::SyntheticData, sample);
    double y = coefficients_.back();
    float* row = out.x.row(i).data();
    for (Eigen::Index j = 0; j < d; ++j) {
      const auto v = static_cast<float>(rng.uniform(-1.0, 1.0));
      row[j] = v;
      y += static_cast<double>(coefficients_[static_cast<std::size_t>(j)]) * v;
    }
    out.targets[i] = static_cast<float>(y + spec_.noise_sd * rng.normal());
  }
}

HyperplaneData make_hyperplane_data(const HyperplaneSpec& spec) {
  return {std::make_shared<SyntheticHyperplane>(spec, 0, spec.train_size, "hyperplane/train"),
          std::make_shared<SyntheticHyperplane>(spec, spec.train_size, spec.test_size, "hyperplane/test")};
}

}  // namespace quorum
