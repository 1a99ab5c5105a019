#pragma once
// Element-wise vector arithmetic the collectives and algorithms share: sums, scaling, averaging. Plain loops over
// contiguous floats, which GCC vectorises; the sizes involved (proxy models) are small.
#include <cassert>
#include <span>
#include <vector>

namespace quorum::vec {

// y += x
inline void add(std::span<float> y, std::span<const float> x) {
  assert(y.size() == x.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += x[i];
}

// y *= a
inline void scale(std::span<float> y, float a) {
  for (auto& v : y) v *= a;
}

// y += a * x
inline void axpy(std::span<float> y, float a, std::span<const float> x) {
  assert(y.size() == x.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] += a * x[i];
}

// Element-wise mean of several equally long vectors, in the order given (the order fixes the rounding).
inline std::vector<float> mean(const std::vector<std::span<const float>>& vs) {
  if (vs.empty()) return {};
  std::vector<double> acc(vs.front().size(), 0.0);
  for (const auto& v : vs) {
    assert(v.size() == acc.size());
    for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += v[i];
  }
  std::vector<float> out(acc.size());
  const double inv = 1.0 / static_cast<double>(vs.size());
  for (std::size_t i = 0; i < acc.size(); ++i) out[i] = static_cast<float>(acc[i] * inv);
  return out;
}

}  // namespace quorum::vec
