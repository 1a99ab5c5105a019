#include "sim/model/StragglerModel.hpp"

#include <gtest/gtest.h>

#include "sim/model/Fields.hpp"

namespace quorum {

namespace {
StragglerModel model(const nlohmann::json& j, int ranks, std::uint64_t seed = 5) {
  Fields f(j, "imbalance");
  return StragglerModel(parse_imbalance(f, ranks, ""), ranks, seed);
}
}  // namespace

TEST(StragglerModel, RandomDelayHitsExactlyKRanksPerStep) {
  const auto m = model({{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.32}}, 64);
  std::vector<int> hits(64, 0);
  for (int step = 0; step < 1000; ++step) {
    int delayed = 0;
    for (int r = 0; r < 64; ++r) {
      const double d = m.delay(r, step, 0.641);
      if (d > 0) {
        EXPECT_DOUBLE_EQ(d, 0.32);
        ++delayed;
        ++hits[static_cast<std::size_t>(r)];
      }
    }
    EXPECT_EQ(delayed, 2);
  }
  for (int h : hits) EXPECT_GT(h, 10);  // spread over all ranks
}

TEST(StragglerModel, SameSeedSameDelaysOtherSeedOthers) {
  const auto a = model({{"kind", "random_delay"}, {"ranks", 4}, {"delay_s", 0.46}}, 64, 1);
  const auto b = model({{"kind", "random_delay"}, {"ranks", 4}, {"delay_s", 0.46}}, 64, 1);
  const auto c = model({{"kind", "random_delay"}, {"ranks", 4}, {"delay_s", 0.46}}, 64, 2);
  int differ = 0;
  for (int step = 0; step < 50; ++step)
    for (int r = 0; r < 64; ++r) {
      EXPECT_EQ(a.delay(r, step, 1), b.delay(r, step, 1));
      differ += a.delay(r, step, 1) != c.delay(r, step, 1);
    }
  EXPECT_GT(differ, 0);
}

TEST(StragglerModel, SlowWorkerPersistentOrRedrawn) {
  const auto listed = model({{"kind", "slow_worker"}, {"ranks", {3}}, {"factor", 5}}, 16);
  for (int step = 0; step < 20; ++step) {
    EXPECT_DOUBLE_EQ(listed.delay(3, step, 0.2), 0.8);  // 5x slower: 4 x base extra
    EXPECT_DOUBLE_EQ(listed.delay(4, step, 0.2), 0.0);
  }
  // Prague's other reading of "5x": a sleep of 5 step times added, so the step takes 6x as long.
  const auto added = model({{"kind", "slow_worker"}, {"ranks", {3}}, {"added_step_times", 5}}, 16);
  EXPECT_DOUBLE_EQ(added.delay(3, 0, 0.2), 1.0);
  EXPECT_DOUBLE_EQ(added.delay(4, 0, 0.2), 0.0);
  const auto persistent = model({{"kind", "slow_worker"}, {"ranks", 1}, {"factor", 2}}, 16);
  int slow = -1;
  for (int r = 0; r < 16; ++r)
    if (persistent.delay(r, 0, 1.0) > 0) slow = r;
  ASSERT_GE(slow, 0);
  for (int step = 0; step < 100; ++step) EXPECT_DOUBLE_EQ(persistent.delay(slow, step, 1.0), 1.0);
  const auto redrawn = model({{"kind", "slow_worker"}, {"ranks", 1}, {"factor", 2}, {"redraw_every", 10}}, 16);
  std::set<int> seen;
  for (int step = 0; step < 500; step += 10)
    for (int r = 0; r < 16; ++r)
      if (redrawn.delay(r, step, 1.0) > 0) seen.insert(r);
  EXPECT_GT(seen.size(), 4u);
}

TEST(StragglerModel, SkewsFollowTheirFormulas) {
  const auto linear = model({{"kind", "linear_skew"}, {"step_s", 0.001}}, 32);
  EXPECT_DOUBLE_EQ(linear.delay(0, 0, 1), 0.0);
  EXPECT_DOUBLE_EQ(linear.delay(31, 9, 1), 0.031);
  const auto shifted = model({{"kind", "shifted_skew"}, {"min_s", 0.0}, {"max_s", 0.3}}, 4);
  EXPECT_DOUBLE_EQ(shifted.delay(0, 0, 1), 0.0);
  EXPECT_DOUBLE_EQ(shifted.delay(3, 0, 1), 0.3);
  EXPECT_DOUBLE_EQ(shifted.delay(3, 1, 1), 0.0);  // shifted by one rank per step
  EXPECT_DOUBLE_EQ(shifted.delay(2, 1, 1), 0.3);
}

TEST(StragglerModel, DistributionWithProbability) {
  const auto m = model({{"kind", "distribution"},
                        {"probability", 0.25},
                        {"distribution", {{"kind", "constant"}, {"seconds", 0.1}}}},
                       8);
  int hits = 0;
  for (int step = 0; step < 1000; ++step)
    for (int r = 0; r < 8; ++r) hits += m.delay(r, step, 1) > 0;
  EXPECT_NEAR(hits, 2000, 150);
}

TEST(StragglerModel, BadFieldsAreNamed) {
  auto expect_field = [](const nlohmann::json& j, const std::string& field) {
    try {
      model(j, 8);
      ADD_FAILURE() << "no error for " << j.dump();
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  };
  expect_field({{"kind", "random_delay"}, {"ranks", 9}, {"delay_s", 0.1}}, "imbalance.ranks");
  expect_field({{"kind", "random_delay"}, {"ranks", 2}}, "imbalance.delay_s");
  expect_field({{"kind", "slow_worker"}, {"ranks", {8}}, {"factor", 2}}, "imbalance.ranks");
  expect_field({{"kind", "slow_worker"}, {"factor", 0.5}}, "imbalance.factor");
  expect_field({{"kind", "slow_worker"}, {"added_step_times", -1}}, "imbalance.added_step_times");
  expect_field({{"kind", "slow_worker"}, {"factor", 2}, {"added_step_times", 1}}, "imbalance.added_step_times");
  expect_field({{"kind", "earthquake"}}, "imbalance.kind");
  expect_field({{"kind", "linear_skew"}, {"step_s", 0.1}, {"stepp", 1}}, "imbalance.stepp");
}

}  // namespace quorum
