#include "kernels/random/SeedStream.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace quorum {

TEST(SeedStream, SameKeySameDraws) {
  Rng a(42, Stream::Straggler, 3, 7), b(42, Stream::Straggler, 3, 7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next(), b.next());
}

TEST(SeedStream, DifferentKeysDiffer) {
  std::set<std::uint64_t> firsts;
  for (std::uint64_t step = 0; step < 1000; ++step) firsts.insert(Rng(42, Stream::Straggler, step).next());
  firsts.insert(Rng(43, Stream::Straggler, 0).next());
  firsts.insert(Rng(42, Stream::Batch, 0).next());
  EXPECT_EQ(firsts.size(), 1002u);
}

TEST(SeedStream, UniformAndNormalMoments) {
  Rng rng(1);
  double sum = 0, sum2 = 0, usum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal();
    sum += x;
    sum2 += x * x;
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    usum += u;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum2 / n, 1.0, 0.01);
  EXPECT_NEAR(usum / n, 0.5, 0.005);
}

TEST(SeedStream, BelowIsInRangeAndCoversIt) {
  Rng rng(5);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const auto v = rng.below(7);
    ASSERT_LT(v, 7u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
}

TEST(SeedStream, SampleDistinctGivesKSortedDistinctValues) {
  Rng rng(9);
  for (int k : {0, 1, 2, 5, 64}) {
    const auto s = sample_distinct(rng, 64, k);
    ASSERT_EQ(static_cast<int>(s.size()), k);
    for (std::size_t i = 1; i < s.size(); ++i) EXPECT_LT(s[i - 1], s[i]);
    for (int v : s) {
      EXPECT_GE(v, 0);
      EXPECT_LT(v, 64);
    }
  }
  EXPECT_EQ(sample_distinct(rng, 3, 10).size(), 3u);  // clamped
}

TEST(SeedStream, SampleDistinctIsUniform) {
  std::vector<int> counts(16, 0);
  for (std::uint64_t t = 0; t < 16000; ++t) {
    Rng rng(3, Stream::Straggler, t);
    for (int v : sample_distinct(rng, 16, 2)) ++counts[static_cast<std::size_t>(v)];
  }
  for (int c : counts) EXPECT_NEAR(c, 2000, 200);
}

}  // namespace quorum
