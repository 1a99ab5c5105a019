#include "kernels/random/SeedStream.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

namespace quorum {

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t derive_seed(std::uint64_t seed, Stream purpose, std::uint64_t a, std::uint64_t b) {
  std::uint64_t h = mix64(seed);
  h = mix64(h ^ static_cast<std::uint64_t>(purpose));
  h = mix64(h ^ a);
  return mix64(h ^ (b + 0x632BE59BD9B4E019ULL));
}

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& s : s_) {
    x = mix64(x);
    s = x;
  }
}

Rng::Rng(std::uint64_t seed, Stream purpose, std::uint64_t a, std::uint64_t b) : Rng(derive_seed(seed, purpose, a, b)) {}

__extension__ typedef unsigned __int128 uint128;

static inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

std::uint64_t Rng::below(std::uint64_t n) {
  // Lemire's nearly-divisionless method.
  uint128 m = static_cast<uint128>(next()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<uint128>(next()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double Rng::normal() {
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Rng::lognormal(double mu, double sigma) { return std::exp(normal(mu, sigma)); }

std::vector<int> sample_distinct(Rng& rng, int n, int k) {
  k = std::clamp(k, 0, std::max(n, 0));
  std::set<int> chosen;
  for (int j = n - k; j < n; ++j) {
    const int t = static_cast<int>(rng.below(static_cast<std::uint64_t>(j) + 1));
    if (!chosen.insert(t).second) chosen.insert(j);
  }
  return {chosen.begin(), chosen.end()};
}

}  // namespace quorum
