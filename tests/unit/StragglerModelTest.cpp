#include "sim/model/StragglerModel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <map>
#include <random>
#include <set>

#include "sim/model/Fields.hpp"

namespace quorum {

namespace {
StragglerModel model(const nlohmann::json& j, int ranks, std::uint64_t seed = 5,
                     const std::vector<RankLevel>& levels = {{"node", 1}}) {
  Fields f(j, "imbalance");
  return StragglerModel(parse_imbalance(f, ranks, levels, ""), ranks, seed);
}

// slow[rank][step]: whether the rank's step (undisturbed time 1 s) was delayed.
std::vector<std::vector<bool>> slow_steps(const StragglerModel& m, int ranks, int steps) {
  std::vector<std::vector<bool>> slow(static_cast<std::size_t>(ranks),
                                      std::vector<bool>(static_cast<std::size_t>(steps)));
  for (int r = 0; r < ranks; ++r)
    for (int step = 0; step < steps; ++step)
      slow[static_cast<std::size_t>(r)][static_cast<std::size_t>(step)] = m.delay(r, step, 1.0) > 0;
  return slow;
}

// Lengths of the runs of equal values in a sequence, by value; the first and last run are cut by the window (their
// lengths are not episode lengths), so they are left out.
struct Runs {
  std::vector<double> slow, normal;
};
void add_runs(const std::vector<bool>& seq, Runs& runs) {
  std::size_t start = 0;
  bool first = true;
  for (std::size_t i = 1; i <= seq.size(); ++i) {
    if (i < seq.size() && seq[i] == seq[start]) continue;
    if (!first && i < seq.size()) (seq[start] ? runs.slow : runs.normal).push_back(static_cast<double>(i - start));
    first = false;
    start = i;
  }
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
double sd_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}
double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const double ma = mean_of(a), mb = mean_of(b);
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ab += (a[i] - ma) * (b[i] - mb);
    aa += (a[i] - ma) * (a[i] - ma);
    bb += (b[i] - mb) * (b[i] - mb);
  }
  return ab / std::sqrt(aa * bb);
}
std::vector<double> as_doubles(const std::vector<bool>& v) { return {v.begin(), v.end()}; }
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
  // The same "5x" read as the total step (the default, named explicitly) and as Prague sec. 7.4's added sleep of 5
  // step times (the step takes 6x as long).
  const auto total =
      model({{"kind", "slow_worker"}, {"ranks", {3}}, {"factor", 5}, {"factor_means", "total_step"}}, 16);
  EXPECT_DOUBLE_EQ(total.delay(3, 0, 0.2), 0.8);
  const auto added =
      model({{"kind", "slow_worker"}, {"ranks", {3}}, {"factor", 5}, {"factor_means", "added_sleep"}}, 16);
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
  expect_field({{"kind", "slow_worker"}, {"factor", -1}, {"factor_means", "added_sleep"}}, "imbalance.factor");
  expect_field({{"kind", "slow_worker"}, {"factor", 2}, {"factor_means", "added"}}, "imbalance.factor_means");
  expect_field({{"kind", "slow_worker"}, {"added_step_times", 1}}, "imbalance.added_step_times");
  expect_field({{"kind", "earthquake"}}, "imbalance.kind");
  expect_field({{"kind", "linear_skew"}, {"step_s", 0.1}, {"stepp", 1}}, "imbalance.stepp");
}

TEST(StragglerModel, MarkovEpisodesHaveTheConfiguredMeanLengths) {
  // 64 ranks x 20,000 steps, slow episodes of 20 steps and normal ones of 80 on average: about 12,800 of each.
  constexpr int kRanks = 64, kSteps = 20000;
  const double mean_slow = 20, mean_normal = 80;
  const auto m = model({{"kind", "markov"}, {"mean_slow_steps", mean_slow}, {"mean_normal_steps", mean_normal},
                        {"factor", 3}},
                       kRanks);
  const auto slow = slow_steps(m, kRanks, kSteps);
  Runs runs;
  long slow_count = 0;
  for (const auto& seq : slow) {
    add_runs(seq, runs);
    slow_count += std::count(seq.begin(), seq.end(), true);
  }
  const double fraction = static_cast<double>(slow_count) / (double{kRanks} * kSteps);
  const double one_step = static_cast<double>(std::count(runs.slow.begin(), runs.slow.end(), 1.0)) /
                          static_cast<double>(runs.slow.size());
  std::printf("[ measured ] %zu slow episodes: mean %.3f (configured %.0f), sd %.3f (geometric %.3f), P(1 step) %.4f "
              "(%.4f); %zu normal: mean %.3f (%.0f), sd %.3f (%.3f); slow fraction %.4f (%.4f)\n",
              runs.slow.size(), mean_of(runs.slow), mean_slow, sd_of(runs.slow),
              std::sqrt(mean_slow * (mean_slow - 1)), one_step, 1 / mean_slow, runs.normal.size(),
              mean_of(runs.normal), mean_normal, sd_of(runs.normal), std::sqrt(mean_normal * (mean_normal - 1)),
              fraction, mean_slow / (mean_slow + mean_normal));
  ASSERT_GT(runs.slow.size(), 10000u);
  ASSERT_GT(runs.normal.size(), 10000u);
  // Standard errors of the means are under 1%; the lengths are geometric (sd sqrt(m (m - 1)), P(1) = 1 / m).
  EXPECT_NEAR(mean_of(runs.slow), mean_slow, 0.03 * mean_slow);
  EXPECT_NEAR(mean_of(runs.normal), mean_normal, 0.03 * mean_normal);
  EXPECT_NEAR(sd_of(runs.slow), std::sqrt(mean_slow * (mean_slow - 1)), 0.05 * mean_slow);
  EXPECT_NEAR(sd_of(runs.normal), std::sqrt(mean_normal * (mean_normal - 1)), 0.05 * mean_normal);
  // 4 standard errors of a proportion of about 12,800 (seed 5 draws 2.9 below; seeds 1 to 6 span -2.9 to +1.9).
  EXPECT_NEAR(one_step, 1 / mean_slow, 4 * std::sqrt(0.05 * 0.95 / static_cast<double>(runs.slow.size())));
  EXPECT_NEAR(fraction, mean_slow / (mean_slow + mean_normal), 0.01);
  // A slow step takes factor x as long; a normal one is untouched.
  EXPECT_DOUBLE_EQ(m.delay(0, 0, 0.5), slow[0][0] ? 1.0 : 0.0);
}

TEST(StragglerModel, MarkovStartsInItsStationaryLaw) {
  // Slow with probability 1 / (1 + 3) from step 0 on, not only in the long run: 4,096 ranks at a few steps.
  constexpr int kRanks = 4096;
  const auto m = model({{"kind", "markov"}, {"mean_slow_steps", 50}, {"mean_normal_steps", 150}, {"delay_s", 0.1}},
                       kRanks);
  for (int step : {0, 1, 30, 1000}) {
    int slow = 0;
    for (int r = 0; r < kRanks; ++r) slow += m.delay(r, step, 1.0) > 0;
    EXPECT_NEAR(slow / double{kRanks}, 0.25, 0.03) << "step " << step;  // sd 0.0068
  }
  // Mean 1: every slow episode is one step long.
  const auto blips = model({{"kind", "markov"}, {"mean_slow_steps", 1}, {"mean_normal_steps", 4}, {"delay_s", 0.1}},
                           8);
  Runs runs;
  for (const auto& seq : slow_steps(blips, 8, 2000)) add_runs(seq, runs);
  ASSERT_GT(runs.slow.size(), 1000u);
  for (double length : runs.slow) ASSERT_EQ(length, 1.0);
}

TEST(StragglerModel, MarkovSlowEpisodesApplyFactorDelayOrOneDrawPerEpisode) {
  const auto both = model({{"kind", "markov"}, {"mean_slow_steps", 10}, {"mean_normal_steps", 10}, {"factor", 2},
                           {"delay_s", 0.05}},
                          4);
  const auto drawn = model({{"kind", "markov"},
                            {"mean_slow_steps", 10},
                            {"mean_normal_steps", 10},
                            {"distribution", {{"kind", "uniform"}, {"min_s", 0.1}, {"max_s", 0.2}}}},
                           4);
  int slow = 0;
  std::set<double> draws;
  for (int r = 0; r < 4; ++r) {
    double held = 0;
    for (int step = 0; step < 2000; ++step) {
      const double d = both.delay(r, step, 0.3);
      if (d > 0) {
        EXPECT_NEAR(d, 0.3 + 0.05, 1e-12);
        ++slow;
      }
      const double x = drawn.delay(r, step, 0.3);
      if (x == 0) {
        held = 0;
        continue;
      }
      EXPECT_GE(x, 0.1);
      EXPECT_LT(x, 0.2);
      if (held > 0) {
        EXPECT_EQ(x, held) << "rank " << r << " step " << step;  // held through the episode
      }
      held = x;
      draws.insert(x);
    }
  }
  EXPECT_GT(slow, 2000);
  EXPECT_GT(draws.size(), 200u);  // a new draw per episode (about 100 per rank)
}

TEST(StragglerModel, CorrelatedBlocksAreSlowTogetherAndIndependentOfEachOther) {
  constexpr int kRanks = 64, kSteps = 20000, kBlock = 8;
  const auto m = model({{"kind", "markov"}, {"mean_slow_steps", 20}, {"mean_normal_steps", 80}, {"factor", 2},
                        {"block_ranks", kBlock}},
                       kRanks);
  const auto slow = slow_steps(m, kRanks, kSteps);
  for (int r = 0; r < kRanks; ++r)
    ASSERT_EQ(slow[static_cast<std::size_t>(r)], slow[static_cast<std::size_t>(r / kBlock * kBlock)]) << "rank " << r;
  // Between blocks: correlations of the slow indicators near 0. The series are autocorrelated over about
  // 1 / (1/20 + 1/80) = 16 steps, so each correlation has a standard error of about 0.04.
  std::vector<double> block_corr;
  for (int a = 0; a < kRanks; a += kBlock)
    for (int b = a + kBlock; b < kRanks; b += kBlock)
      block_corr.push_back(correlation(as_doubles(slow[static_cast<std::size_t>(a)]),
                                       as_doubles(slow[static_cast<std::size_t>(b)])));
  double largest = 0;
  for (double c : block_corr) largest = std::max(largest, std::abs(c));
  std::printf("[ measured ] %zu block pairs: mean correlation %.4f, largest |correlation| %.4f\n", block_corr.size(),
              mean_of(block_corr), largest);
  EXPECT_LT(largest, 0.15);
  EXPECT_NEAR(mean_of(block_corr), 0.0, 0.03);
  // Named levels come from the platform: Piz Daint's routers hold 4 nodes, so ranks 4..7 share their episodes.
  PizDaintConfig daint;
  daint.nodes = 16;
  const auto routers = model({{"kind", "markov"}, {"mean_slow_steps", 3}, {"mean_normal_steps", 3}, {"factor", 2},
                              {"correlate", "router"}},
                             16, 5, rank_levels(daint));
  const auto by_router = slow_steps(routers, 16, 500);
  for (std::size_t r = 0; r < 16; ++r) EXPECT_EQ(by_router[r], by_router[r / 4 * 4]);
  EXPECT_NE(by_router[0], by_router[4]);
  // Independent ranks (the default) are not slow together.
  const auto independent =
      model({{"kind", "markov"}, {"mean_slow_steps", 3}, {"mean_normal_steps", 3}, {"factor", 2}}, 2);
  const auto own = slow_steps(independent, 2, 500);
  EXPECT_NE(own[0], own[1]);
}

TEST(StragglerModel, PlatformLevelsAreTheDragonflysBlocks) {
  PizDaintConfig daint;
  const auto levels = rank_levels(daint);
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0].name, "node");
  EXPECT_EQ(levels[0].ranks, 1);
  EXPECT_EQ(levels[1].name, "router");
  EXPECT_EQ(levels[1].ranks, 4);
  EXPECT_EQ(levels[2].name, "chassis");
  EXPECT_EQ(levels[2].ranks, 64);
  EXPECT_EQ(levels[3].name, "group");
  EXPECT_EQ(levels[3].ranks, 384);
  Maverick2Config maverick;
  ASSERT_EQ(rank_levels(maverick).size(), 1u);
  EXPECT_EQ(rank_levels(maverick)[0].ranks, 4);  // the GPUs of a node
  GenericConfig dragonfly;
  dragonfly.topology = "dragonfly";
  dragonfly.nodes_per_router = 2;
  dragonfly.routers = 3;
  dragonfly.chassis = 2;
  const auto generic = rank_levels(dragonfly);
  ASSERT_EQ(generic.size(), 4u);
  EXPECT_EQ(generic[1].ranks, 2);
  EXPECT_EQ(generic[2].ranks, 6);
  EXPECT_EQ(generic[3].ranks, 12);
  EXPECT_EQ(rank_levels(GenericConfig{}).size(), 1u);  // a cluster: nodes only
}

TEST(StragglerModel, DistributionKindCorrelatesByBlock) {
  const nlohmann::json j = {{"kind", "distribution"},
                            {"probability", 0.3},
                            {"distribution", {{"kind", "exponential"}, {"mean_s", 0.1}}}};
  nlohmann::json blocks = j;
  blocks["block_ranks"] = 4;
  const auto independent = model(j, 8), correlated = model(blocks, 8);
  int differ = 0;
  for (int step = 0; step < 200; ++step)
    for (int r = 0; r < 8; ++r) {
      EXPECT_EQ(correlated.delay(r, step, 1), correlated.delay(r / 4 * 4, step, 1));
      differ += independent.delay(r, step, 1) != independent.delay(r / 4 * 4, step, 1);
      // A block's first rank draws what it draws alone: block_ranks 1 is the kind as it was.
      if (r % 4 == 0) {
        EXPECT_EQ(correlated.delay(r, step, 1), independent.delay(r, step, 1));
      }
    }
  EXPECT_GT(differ, 200);
}

TEST(StragglerModel, Ar1HasTheConfiguredSdAndAutocorrelation) {
  constexpr int kRanks = 64, kSteps = 20000;
  const double phi = 0.9, sigma = 0.3;
  const auto m = model({{"kind", "ar1"}, {"phi", phi}, {"sigma", sigma}}, kRanks);
  std::vector<std::vector<double>> x(kRanks, std::vector<double>(kSteps));
  double sum = 0, sum2 = 0;
  for (int r = 0; r < kRanks; ++r)
    for (int step = 0; step < kSteps; ++step) {
      const double v = std::log1p(m.delay(r, step, 1.0));  // the log of the step-time factor
      x[static_cast<std::size_t>(r)][static_cast<std::size_t>(step)] = v;
      sum += v;
      sum2 += v * v;
    }
  const double n = double{kRanks} * kSteps, mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  auto autocorrelation = [&](int lag) {
    double c = 0;
    for (const auto& seq : x)
      for (std::size_t t = 0; t + static_cast<std::size_t>(lag) < seq.size(); ++t)
        c += (seq[t] - mean) * (seq[t + static_cast<std::size_t>(lag)] - mean);
    return c / (double{kRanks} * (kSteps - lag)) / (sd * sd);
  };
  const double lag1 = autocorrelation(1), lag10 = autocorrelation(10);
  std::vector<double> r0(x[0].begin(), x[0].end()), r1(x[1].begin(), x[1].end());
  const double across = correlation(r0, r1);
  std::printf("[ measured ] ar1: mean %.4f, sd %.4f (configured %.2f), lag-1 %.4f (%.2f), lag-10 %.4f (%.4f), "
              "ranks 0-1 %.4f\n",
              mean, sd, sigma, lag1, phi, lag10, std::pow(phi, 10), across);
  // About 67,000 independent values' worth: standard errors near 0.003 (mean), 0.3% (sd), 0.002 (lags).
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(sd, sigma, 0.02 * sigma);
  EXPECT_NEAR(lag1, phi, 0.01);
  EXPECT_NEAR(lag10, std::pow(phi, 10), 0.02);
  EXPECT_NEAR(across, 0.0, 0.1);  // one pair, about 1,000 independent values
}

TEST(StragglerModel, DelaysDoNotDependOnTheOrderStepsAreAskedIn) {
  constexpr int kRanks = 16, kSteps = 1500;  // more than 5 of Ar1Slowdown's checkpoint intervals
  const std::vector<nlohmann::json> kinds = {
      {{"kind", "markov"}, {"mean_slow_steps", 7}, {"mean_normal_steps", 30}, {"factor", 2}, {"block_ranks", 2},
       {"distribution", {{"kind", "exponential"}, {"mean_s", 0.2}}}},
      {{"kind", "ar1"}, {"phi", 0.95}, {"sigma", 0.2}, {"block_ranks", 4}}};
  for (const auto& j : kinds) {
    SCOPED_TRACE(j.dump());
    std::vector<std::pair<int, int>> order;
    for (int step = 0; step < kSteps; ++step)
      for (int r = 0; r < kRanks; ++r) order.emplace_back(r, step);
    auto delays = [&](const std::vector<std::pair<int, int>>& asked) {
      const auto m = model(j, kRanks);  // a fresh model: nothing kept from another order
      std::map<std::pair<int, int>, double> d;
      for (const auto& [r, step] : asked) d[{r, step}] = m.delay(r, step, 0.25);
      return d;
    };
    const auto in_order = delays(order);
    auto reversed = order;
    std::reverse(reversed.begin(), reversed.end());
    auto shuffled = order;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
    EXPECT_EQ(delays(reversed), in_order);
    EXPECT_EQ(delays(shuffled), in_order);
    int nonzero = 0;
    for (const auto& [key, d] : in_order) nonzero += d != 0;
    EXPECT_GT(nonzero, kRanks * kSteps / 10);
    // Asked again after later steps, from the same model, the early steps give the same values.
    const auto m = model(j, kRanks);
    const double first = m.delay(3, 10, 0.25);
    m.delay(3, kSteps - 1, 0.25);
    EXPECT_EQ(m.delay(3, 10, 0.25), first);
  }
}

TEST(StragglerModel, NewKindsBadFieldsAreNamed) {
  auto expect_field = [](const nlohmann::json& j, const std::string& field, const std::string& says) {
    try {
      model(j, 8, 5, {{"node", 1}});
      ADD_FAILURE() << "no error for " << j.dump();
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  const nlohmann::json markov = {{"kind", "markov"}, {"mean_slow_steps", 5}, {"mean_normal_steps", 20}};
  auto with = [](nlohmann::json j, const std::string& key, const nlohmann::json& value) {
    j[key] = value;
    return j;
  };
  expect_field(markov, "imbalance.factor", "markov needs");
  expect_field(with(markov, "mean_slow_steps", 0.5), "imbalance.mean_slow_steps", ">= 1");
  expect_field({{"kind", "markov"}, {"mean_slow_steps", 5}, {"factor", 2}}, "imbalance.mean_normal_steps",
               "missing required field");
  expect_field(with(with(markov, "delay_s", 0.1), "distribution", {{"kind", "constant"}, {"seconds", 1}}),
               "imbalance.distribution", "not both");
  expect_field(with(with(markov, "factor", 2), "factor_means", "sleep"), "imbalance.factor_means",
               "allowed: total_step, added_sleep");
  expect_field(with(with(markov, "delay_s", 0.1), "factor_means", "added_sleep"), "imbalance.factor_means",
               "factor is not given");
  expect_field(with(with(markov, "factor", 2), "added_step_times", 1), "imbalance.added_step_times",
               "factor_means: added_sleep");
  expect_field(with(markov, "factor", 0.5), "imbalance.factor", ">= 1");
  expect_field(with(with(markov, "factor", 2), "correlate", "rack"), "imbalance.correlate",
               "allowed: rank, node, router, chassis, group");
  expect_field(with(with(markov, "factor", 2), "correlate", "router"), "imbalance.correlate",
               "this platform has no router level (it has: rank, node");
  expect_field(with(with(with(markov, "factor", 2), "correlate", "node"), "block_ranks", 2), "imbalance.block_ranks",
               "not both");
  expect_field(with(with(markov, "factor", 2), "block_ranks", 9), "imbalance.block_ranks", "<= 8");
  expect_field(with(with(markov, "factor", 2), "mean_slow", 3), "imbalance.mean_slow", "unknown field");
  expect_field({{"kind", "ar1"}, {"phi", 1}, {"sigma", 0.1}}, "imbalance.phi", "must be < 1");
  expect_field({{"kind", "ar1"}, {"phi", -0.1}, {"sigma", 0.1}}, "imbalance.phi", ">= 0");
  expect_field({{"kind", "ar1"}, {"phi", 0.5}}, "imbalance.sigma", "missing required field");
  expect_field({{"kind", "ar1"}, {"phi", 0.5}, {"sigma", 4}}, "imbalance.sigma", "<= 3");
  expect_field({{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.1}, {"correlate", "node"}}, "imbalance.correlate",
               "applies to markov, ar1 and distribution");
  expect_field({{"kind", "slow_worker"}, {"factor", 2}, {"block_ranks", 2}}, "imbalance.block_ranks",
               "not slow_worker");
}

}  // namespace quorum
