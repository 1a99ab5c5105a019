// The heterogeneity experiment of the Prague paper (sec. 7.4, Fig. 20-22) and the AD-PSGD paper (sec. 5.4) at small
// scale, timing only: 16 workers on 4 Maverick2 nodes, one worker 5x slower. Allreduce-SGD waits for it every step;
// AD-PSGD never waits; Prague keeps a part of its throughput. The ratios the full scenarios give, next to the
// papers', are in scenarios/prague/README.md.
//
// Over seeds: which groups Prague forms depends on the order requests reach its generator, so one seed's figure is one
// draw of a spread of about a tenth either way (seeds 1 to 24: Smart keeps 0.39 to 0.66), and the claims hold on
// average, not in every draw (asking at the synchronisation point keeps less than asking at the step's start in five
// seeds of the 24). A change that only rounds differently draws every seed again; the mean of 24 moves far less.
#include <gtest/gtest.h>

#include "tests/support/ScenarioHarness.hpp"

namespace quorum {

using testing::simulate_scenario;

namespace {
double aggregate_rate(const nlohmann::json& algorithm, double factor, int seed) {
  nlohmann::json s = {{"name", "slowdown"},
                      {"seed", seed},
                      {"platform", {{"name", "maverick2"}, {"nodes", 4}}},
                      {"workload", {{"profile", "vgg16_cifar10_1080ti"}, {"iterations", 60}}},
                      {"imbalance", factor > 1 ? nlohmann::json{{"kind", "slow_worker"}, {"ranks", 1}, {"factor", factor}}
                                               : nlohmann::json{{"kind", "none"}}},
                      {"algorithm", algorithm},
                      {"output", {{"progress", false}}}};
  const auto r = simulate_scenario(s);
  EXPECT_TRUE(r.ok) << r.error;
  return r.ok ? r.summary["aggregate_steps_per_s"].get<double>() : 0.0;
}
double kept(const nlohmann::json& algorithm, int seed) {
  return aggregate_rate(algorithm, 5, seed) / aggregate_rate(algorithm, 1, seed);
}
constexpr int kSeeds = 24;
}  // namespace

TEST(SlowdownTolerance, OneWorkerFiveTimesSlower) {
  double allreduce = 0, smart = 0, smart_late = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const double allreduce_kept = kept({{"name", "allreduce"}}, seed);
    const double adpsgd_kept = kept({{"name", "adpsgd"}}, seed);
    // Allreduce-SGD runs at the slow worker's pace: compute 5x, communication not, so a little above 1/5.
    EXPECT_GT(allreduce_kept, 0.2) << "seed " << seed;
    EXPECT_LT(allreduce_kept, 0.3) << "seed " << seed;
    // AD-PSGD: the other 15 workers never wait; (15 + 1/5) / 16 = 0.95 of the homogeneous rate.
    EXPECT_GT(adpsgd_kept, 0.9) << "seed " << seed;
    allreduce += allreduce_kept / kSeeds;
    smart += kept({{"name", "prague"}, {"mode", "smart"}}, seed) / kSeeds;
    smart_late += kept({{"name", "prague"}, {"mode", "smart"}, {"request_at", "sync_point"}}, seed) / kSeeds;
  }
  // Prague smart keeps about half (the paper: 0.41 on ResNet-18, 0.46 on ResNet-200), twice Allreduce-SGD's share,
  // and more when workers ask for their group only at the synchronisation point (seeds 1 to 24: 0.50 and 0.59 on
  // average, against Allreduce-SGD's 0.25).
  EXPECT_GT(smart, 1.6 * allreduce);
  EXPECT_LT(smart, 0.7);
  EXPECT_GT(smart_late, smart);
}

}  // namespace quorum
