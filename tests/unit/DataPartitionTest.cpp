// math.partition: iid blocks, Dirichlet label skew and label shards cover the training set exactly once, are
// deterministic per seed, and skew the labels as intended.
#include "kernels/data/DataPartition.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "kernels/MathSetup.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {

constexpr int kClasses = 10;

// A labelled training set of n samples: labels drawn at random (classes of unequal sizes), or i % 10 (equal).
struct Labelled {
  std::vector<std::int32_t> labels;
  std::vector<std::int64_t> permutation;
};
Labelled labelled(std::int64_t n, bool equal_classes, std::uint64_t seed = 5) {
  Labelled d;
  Rng rng(seed);
  for (std::int64_t i = 0; i < n; ++i)
    d.labels.push_back(equal_classes ? static_cast<std::int32_t>(i % kClasses)
                                     : static_cast<std::int32_t>(rng.below(kClasses)));
  d.permutation.resize(static_cast<std::size_t>(n));
  std::iota(d.permutation.begin(), d.permutation.end(), std::int64_t{0});
  shuffle(d.permutation, rng);
  return d;
}

PartitionConfig kind(const std::string& k, double alpha = 0.5, std::int64_t per_rank = 2) {
  PartitionConfig c;
  c.kind = k;
  c.alpha = alpha;
  c.per_rank = per_rank;
  return c;
}

DataPartition make(const Labelled& d, const PartitionConfig& c, int ranks, std::uint64_t seed = 1) {
  return partition_training_set(c, d.permutation, d.labels, kClasses, ranks, seed);
}

void expect_exactly_once(const DataPartition& p, std::size_t n) {
  std::vector<int> seen(n, 0);
  for (const auto& shard : p.shards)
    for (const auto i : shard) ++seen.at(static_cast<std::size_t>(i));
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
}

// Mean over ranks of the largest label's share of the rank's samples (1: one label per rank; 0.1: uniform).
double mean_max_label_share(const Labelled& d, const DataPartition& p) {
  const auto h = label_histogram(p, d.labels, kClasses);
  double sum = 0;
  for (const auto& row : h) {
    const auto total = std::accumulate(row.begin(), row.end(), std::int64_t{0});
    sum += static_cast<double>(*std::max_element(row.begin(), row.end())) / static_cast<double>(total);
  }
  return sum / static_cast<double>(h.size());
}

std::size_t labels_of(const std::vector<std::int64_t>& row) {
  return static_cast<std::size_t>(std::count_if(row.begin(), row.end(), [](std::int64_t c) { return c > 0; }));
}

}  // namespace

TEST(DataPartition, EveryKindCoversTheTrainingSetExactlyOnce) {
  const Labelled d = labelled(6000, false);
  for (const auto& c : {kind("iid"), kind("dirichlet", 0.1), kind("dirichlet", 1.0), kind("dirichlet", 100.0),
                        kind("shards", 0, 1), kind("shards", 0, 2), kind("shards", 0, 5)})
    for (int ranks : {1, 7, 16, 64}) {
      SCOPED_TRACE(c.kind + " alpha " + std::to_string(c.alpha) + " per_rank " + std::to_string(c.per_rank) +
                   ", " + std::to_string(ranks) + " ranks");
      const DataPartition p = make(d, c, ranks);
      ASSERT_EQ(p.shards.size(), static_cast<std::size_t>(ranks));
      expect_exactly_once(p, d.labels.size());
      for (const auto& shard : p.shards) EXPECT_FALSE(shard.empty());
    }
}

TEST(DataPartition, DeterministicPerSeedAndDifferentAcrossSeeds) {
  const Labelled d = labelled(6000, false);
  for (const auto& c : {kind("dirichlet", 0.1), kind("shards", 0, 2)}) {
    SCOPED_TRACE(c.kind);
    EXPECT_EQ(make(d, c, 16, 3).shards, make(d, c, 16, 3).shards);
    EXPECT_NE(make(d, c, 16, 3).shards, make(d, c, 16, 4).shards);
  }
  // iid depends on the seed through the shuffle only (MathSetup's), which this test fixes.
  EXPECT_EQ(make(d, kind("iid"), 16, 3).shards, make(d, kind("iid"), 16, 4).shards);
}

// The iid partition is the one every run used before math.partition existed: block r of P of the shuffled set.
TEST(DataPartition, IidIsBlockROfTheShuffledSet) {
  const Labelled d = labelled(1000, false);
  const DataPartition p = make(d, kind("iid"), 3);
  for (int r = 0; r < 3; ++r) {
    const std::vector<std::int64_t> block(d.permutation.begin() + 1000 * r / 3, d.permutation.begin() + 1000 * (r + 1) / 3);
    EXPECT_EQ(p.shards[static_cast<std::size_t>(r)], block);
  }
  // More ranks than samples: empty blocks fall back to the whole set, as before.
  const Labelled tiny = labelled(3, false);
  const DataPartition q = make(tiny, kind("iid"), 5);
  EXPECT_EQ(q.shards[0].size(), 3u);
}

TEST(DataPartition, SmallAlphaSkewsLabelsAndLargeAlphaIsNearUniform) {
  const Labelled d = labelled(60000, true);
  const double skewed = mean_max_label_share(d, make(d, kind("dirichlet", 0.1), 16));
  const double moderate = mean_max_label_share(d, make(d, kind("dirichlet", 1.0), 16));
  const double uniform = mean_max_label_share(d, make(d, kind("dirichlet", 1000.0), 16));
  EXPECT_GT(skewed, 0.6);
  EXPECT_LT(uniform, 0.13);
  EXPECT_GT(skewed, moderate);
  EXPECT_GT(moderate, uniform);
}

TEST(DataPartition, ShardsGiveEachRankAtMostPerRankLabelsWhenShardsAlignWithClasses) {
  // 10 equal classes of 600; 10 ranks x 2 shards of 300: no shard straddles two labels.
  const Labelled aligned = labelled(6000, true);
  const auto h = label_histogram(make(aligned, kind("shards", 0, 2), 10), aligned.labels, kClasses);
  for (const auto& row : h) {
    EXPECT_LE(labels_of(row), 2u);
    EXPECT_EQ(std::accumulate(row.begin(), row.end(), std::int64_t{0}), 600);
  }
  // 16 ranks x 2 shards of 187 or 188: a shard may straddle a class boundary, so up to 2 labels per shard.
  const auto g = label_histogram(make(aligned, kind("shards", 0, 2), 16), aligned.labels, kClasses);
  std::size_t most = 0;
  for (const auto& row : g) most = std::max(most, labels_of(row));
  EXPECT_LE(most, 4u);
  EXPECT_GE(most, 2u);
}

TEST(DataPartition, LabelHistogramCountsEverySample) {
  const Labelled d = labelled(6000, false);
  const auto h = label_histogram(make(d, kind("dirichlet", 0.5), 8), d.labels, kClasses);
  ASSERT_EQ(h.size(), 8u);
  std::vector<std::int64_t> per_label(kClasses, 0);
  for (const auto& row : h)
    for (int c = 0; c < kClasses; ++c) per_label[static_cast<std::size_t>(c)] += row[static_cast<std::size_t>(c)];
  for (int c = 0; c < kClasses; ++c)
    EXPECT_EQ(per_label[static_cast<std::size_t>(c)], std::count(d.labels.begin(), d.labels.end(), c));
}

TEST(DataPartition, ImpossiblePartitionsNameTheirField) {
  const Labelled d = labelled(100, false);
  auto message = [&d](const PartitionConfig& c, int ranks, std::span<const std::int32_t> labels) {
    try {
      partition_training_set(c, d.permutation, labels, labels.empty() ? 0 : kClasses, ranks, 1);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(kind("shards", 0, 11), 10, d.labels).find("math.partition.per_rank"), std::string::npos);
  EXPECT_NE(message(kind("dirichlet", 0.0), 4, d.labels).find("math.partition.alpha"), std::string::npos);
  EXPECT_NE(message(kind("dirichlet", 0.5), 4, {}).find("math.partition.kind"), std::string::npos);
}

// The synthetic hyperplane has no labels: only iid applies.
TEST(DataPartition, HyperplaneRefusesLabelPartitions) {
  MathConfig c;
  c.model = "hyperplane";
  c.hyperplane.dim = 4;
  c.hyperplane.train_size = 64;
  c.hyperplane.test_size = 8;
  c.partition.kind = "dirichlet";
  try {
    make_math_setup(c, 1);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("math.partition.kind"), std::string::npos) << e.what();
  }
  c.partition.kind = "iid";
  const auto setup = make_math_setup(c, 1);
  EXPECT_EQ(setup->partition(4)->shards.size(), 4u);
  EXPECT_EQ(setup->partition(4), setup->partition(4));  // made once, shared by every rank's Trainer
}

}  // namespace quorum
