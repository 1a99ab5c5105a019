#pragma once
// Seeded random streams. Every random choice in a run (compute times, stragglers, batches, initial weights,
// majority initiators, gossip peers, groups) draws from a stream keyed by (scenario seed, purpose, a, b), so a
// simulated run and a real run of the same scenario make the same draws, and a simulated run repeats bit for bit.
#include <cstdint>
#include <limits>
#include <vector>

namespace quorum {

// What a stream is used for; the value is part of the key, so never renumber an entry.
enum class Stream : std::uint64_t {
  ComputeTime = 1,         // per-rank per-step base compute duration
  Straggler = 2,           // which ranks are delayed and by how much
  Batch = 3,               // mini-batch sampling, per rank and step
  ModelInit = 4,           // initial weights (shared by all ranks)
  DataShard = 5,           // permutation of the training set before sharding
  SyntheticData = 6,       // synthetic datasets (hyperplane)
  Majority = 7,            // majority-allreduce initiators
  Gossip = 8,              // gossip peers
  GroupGenerator = 9,      // Prague group generation
  Algorithm = 10,          // any other algorithm-level draw
  StragglerEpisodes = 11,  // per block of ranks: slow/normal episode sequences, AR(1) slowdowns, per-episode draws
};

// splitmix64 finaliser: a bijective 64-bit mixer.
std::uint64_t mix64(std::uint64_t x);

// The seed of stream (seed, purpose, a, b).
std::uint64_t derive_seed(std::uint64_t seed, Stream purpose, std::uint64_t a = 0, std::uint64_t b = 0);

// xoshiro256** generator with the helpers the project needs. Our own normal and integer sampling (rather than
// <random>'s distributions) keep draws identical across standard libraries.
class Rng {
 public:
  using result_type = std::uint64_t;

  explicit Rng(std::uint64_t seed);
  Rng(std::uint64_t seed, Stream purpose, std::uint64_t a = 0, std::uint64_t b = 0);

  std::uint64_t next();
  result_type operator()() { return next(); }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  double uniform();                         // [0, 1)
  double uniform(double lo, double hi);     // [lo, hi)
  std::uint64_t below(std::uint64_t n);     // [0, n), unbiased; n > 0
  double normal();                          // standard normal (Box-Muller, one value per call)
  double normal(double mean, double sd) { return mean + sd * normal(); }
  double lognormal(double mu, double sigma);

 private:
  std::uint64_t s_[4];
};

// k distinct values of [0, n), sorted ascending (Floyd's algorithm, O(k log k)); k is clamped to n.
std::vector<int> sample_distinct(Rng& rng, int n, int k);

// In-place Fisher-Yates shuffle with our generator.
template <typename T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    std::size_t j = static_cast<std::size_t>(rng.below(i));
    std::swap(v[i - 1], v[j]);
  }
}

}  // namespace quorum
