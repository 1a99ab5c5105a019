// eager-SGD, WAGMA-SGD and the collective microbenchmark as algorithms: their degenerate cases against the
// synchronous baselines, their behaviour under stragglers, their metrics, and their parameter checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "algorithms/collectives/ButterflyGrouping.hpp"
#include "algorithms/sgd/WagmaSgd.hpp"
#include "sim/model/Scenario.hpp"
#include "tests/support/AlgorithmHarness.hpp"
#include "tests/support/ScenarioHarness.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::simulate_scenario;

namespace {

// Four ranks on a star, 1 s per step; rank 3 computes 2.2 times slower (2.2 s per step), so it calls its step 0 at
// 2.2 s, when the others' group steps 0 and 1 have completed: two versions late.
testing::AlgorithmRun late_rank_run(const std::string& algorithm, nlohmann::json params, std::int64_t iterations,
                                    double lr) {
  testing::AlgorithmRun run{algorithm, std::move(params), testing::star(4), iterations};
  run.compute_s = 1.0;
  run.imbalance.kind = "slow_worker";
  run.imbalance.rank_list = {3};
  run.imbalance.factor = 2.2;
  run.lr = lr;
  return run;
}

// End time of rank r's execution of a version of the partial allreduce (its progress agent's span).
double version_end(const testing::AlgorithmRunResult& r, int rank, int version) {
  for (const auto& s : r.spans)
    if (s["rank"] == rank && s["category"] == "partial_allreduce" && s["name"] == "version " + std::to_string(version))
      return s["end"].get<double>();
  return -1;
}

// Algorithm 2's averaging of a late model with a group sum: (sum + W') / (S + 1), in the algorithm's float order.
std::vector<float> stale_average(const std::vector<float>& sum, const std::vector<float>& w, int s) {
  std::vector<float> out(sum.size());
  for (std::size_t i = 0; i < sum.size(); ++i) out[i] = (sum[i] + w[i]) * (1.0f / static_cast<float>(s + 1));
  return out;
}
std::vector<float> plus(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return out;
}
std::vector<float> half(const std::vector<float>& a) {
  std::vector<float> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] * 0.5f;
  return out;
}

// Hyperplane regression on a small Piz Daint; `delayed` random ranks per step are 0.1 s late.
nlohmann::json scenario(const nlohmann::json& algorithm, int nodes, int iterations, int delayed) {
  nlohmann::json s = {
      {"name", "eager-wagma-test"},
      {"seed", 5},
      {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
      {"workload", {{"profile", "hyperplane"}, {"iterations", iterations}, {"compute", {{"kind", "constant"}, {"seconds", 0.2}}}}},
      {"algorithm", algorithm},
      {"math", {{"model", "hyperplane"}, {"batch", 16}, {"dim", 32}, {"train_size", 1024}, {"test_size", 256}, {"lr", 0.02}}},
      {"output", {{"progress", false}}}};
  if (delayed > 0) s["imbalance"] = {{"kind", "random_delay"}, {"ranks", delayed}, {"delay_s", 0.1}};
  return s;
}

void expect_near_params(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b,
                        float tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t r = 0; r < a.size(); ++r) {
    ASSERT_EQ(a[r].size(), b[r].size());
    ASSERT_FALSE(a[r].empty());
    for (std::size_t i = 0; i < a[r].size(); ++i)
      ASSERT_NEAR(a[r][i], b[r][i], tolerance * (1 + std::abs(b[r][i]))) << "rank " << r << " parameter " << i;
  }
}

std::string scenario_error(const nlohmann::json& s) {
  try {
    parse_scenario(s, "");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// ------------------------------------------------------------------------------------------------ eager-SGD -----

TEST(EagerSgd, WithoutStragglersEqualsAllreduceSgd) {
  const auto reference = simulate_scenario(scenario({{"name", "allreduce"}}, 8, 12, 0));
  ASSERT_TRUE(reference.ok) << reference.error;
  for (const char* collective : {"solo", "majority"}) {
    SCOPED_TRACE(collective);
    const auto r = simulate_scenario(scenario({{"name", "eager_sgd"}, {"collective", collective}}, 8, 12, 0));
    ASSERT_TRUE(r.ok) << r.error;
    // Everyone arrives together, so every version sums every fresh gradient (in butterfly rather than ring order).
    expect_near_params(r.final_params, reference.final_params, 1e-5f);
    EXPECT_DOUBLE_EQ(r.summary["mean_active_processes"].get<double>(), 8.0);
    EXPECT_EQ(r.summary["staleness_histogram"], nlohmann::json({{"0", 8 * 12}}));
  }
}

TEST(EagerSgd, StragglersContributeStaleGradientsAndNobodyWaitsForThemUnderSolo) {
  const auto sync = simulate_scenario(scenario({{"name", "allreduce"}}, 8, 30, 1));
  const auto solo = simulate_scenario(scenario({{"name", "eager_sgd"}}, 8, 30, 1));
  const auto majority = simulate_scenario(scenario({{"name", "eager_sgd"}, {"collective", "majority"}}, 8, 30, 1));
  ASSERT_TRUE(sync.ok && solo.ok && majority.ok) << sync.error << solo.error << majority.error;
  const double t_sync = sync.summary["throughput_steps_per_s"], t_solo = solo.summary["throughput_steps_per_s"],
               t_majority = majority.summary["throughput_steps_per_s"];
  // One rank 0.1 s late per 0.2 s step: synchronous steps take about 0.3 s, solo ones about 0.2 s.
  EXPECT_GT(t_solo, 1.3 * t_sync);
  EXPECT_GT(t_majority, t_sync);
  EXPECT_GE(t_solo, t_majority);
  EXPECT_LT(solo.summary["mean_active_processes"].get<double>(), 8.0);
  EXPECT_GT(solo.summary["staleness_histogram"]["1"].get<int>(), 0);  // late ranks' gradients, one step old
  EXPECT_LT(solo.summary["final_loss"].get<double>(), solo.summary["initial_loss"].get<double>() / 2);
  // Under majority a random initiator waits for those before it: more fresh contributions than under solo.
  EXPECT_GT(majority.summary["mean_active_processes"].get<double>(),
            solo.summary["mean_active_processes"].get<double>());
}

TEST(EagerSgd, SynchronousCollectivesBoundTheDriftAndTheStaleness) {
  // Nobody waits under solo: ranks once delayed stay behind and drift apart (with a 32 KB model the collective is
  // too cheap for late ranks to catch up by skipping it). Every 5th allreduce run synchronously re-aligns them.
  const auto drifting = simulate_scenario(scenario({{"name", "eager_sgd"}}, 8, 40, 1));
  const auto bounded = simulate_scenario(scenario({{"name", "eager_sgd"}, {"collective_sync_every", 5}}, 8, 40, 1));
  ASSERT_TRUE(drifting.ok && bounded.ok) << drifting.error << bounded.error;
  EXPECT_GT(bounded.summary["mean_active_processes"].get<double>(),
            drifting.summary["mean_active_processes"].get<double>() + 1.0);
  int oldest = 0;
  for (const auto& [bucket, count] : bounded.summary["staleness_histogram"].items())
    oldest = std::max(oldest, std::stoi(bucket));
  EXPECT_LE(oldest, 4);
  EXPECT_GT(oldest, 0);
}

// eager-SGD's Fig. 7 with a rank two versions late (P = 4, three steps): at each step it applies that step's
// gradient sum, so every rank applies the same three sums in the same order and all replicas move by the same
// update (up to rounding: the replicas start apart).
TEST(EagerSgd, ALateRankAppliesTheGradientSumOfItsOwnStep) {
  const auto own = run_algorithm(late_rank_run("eager_sgd", {}, 3, 0.05));
  const auto newest = run_algorithm(late_rank_run("eager_sgd", {{"late_result", "newest"}}, 3, 0.05));
  ASSERT_TRUE(own.ok && newest.ok) << own.error << newest.error;
  EXPECT_LT(version_end(own, 3, 1), 2.2);  // versions 0 and 1 done before rank 3's first call
  auto update = [](const testing::AlgorithmRunResult& r, int rank) {
    std::vector<float> d(r.final[static_cast<std::size_t>(rank)].size());
    for (std::size_t i = 0; i < d.size(); ++i)
      d[i] = r.final[static_cast<std::size_t>(rank)][i] - r.initial[static_cast<std::size_t>(rank)][i];
    return d;
  };
  auto max_gap = [&](const testing::AlgorithmRunResult& r, int rank) {
    const auto a = update(r, 0), b = update(r, rank);
    float gap = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      gap = std::max(gap, std::abs(a[i] - b[i]));
      scale = std::max(scale, std::abs(a[i]));
    }
    return gap / scale;
  };
  for (int rank = 1; rank < 4; ++rank) EXPECT_LT(max_gap(own, rank), 1e-5f) << "rank " << rank;
  // Reading the newest sum instead, rank 3 applies the sums of steps 1, 2 and 2 again, never step 0's.
  EXPECT_LT(max_gap(newest, 1), 1e-5f);
  EXPECT_GT(max_gap(newest, 3), 1e-2f);
}

TEST(EagerSgd, ModelSyncMakesTheReplicasEqual) {
  // 12 steps, a model average every 4: the run ends on one, so every rank holds the same model.
  const auto r = simulate_scenario(scenario({{"name", "eager_sgd"}, {"model_sync_every", 4}}, 4, 12, 1));
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& p : r.final_params) EXPECT_EQ(p, r.final_params[0]);
}

TEST(EagerSgd, ModelsAreAveragedAtThePapersPeriodUnlessTurnedOff) {
  // Ranks reading the newest sum (fflib2's single receive buffer) drift apart (sec. 5); by default the models are
  // averaged every 1,564 steps (10 ImageNet epochs at the paper's 8,192 per step), so a run of exactly that many
  // steps ends on an average, and one with model_sync_every 0 does not.
  constexpr int kSteps = 1564;
  auto s = scenario({{"name", "eager_sgd"}, {"late_result", "newest"}}, 4, kSteps, 1);
  s["math"]["dim"] = 8;
  const auto by_default = simulate_scenario(s);
  ASSERT_TRUE(by_default.ok) << by_default.error;
  for (const auto& p : by_default.final_params) EXPECT_EQ(p, by_default.final_params[0]);
  EXPECT_EQ(by_default.summary["scenario"]["algorithm"]["model_sync_every"], kSteps);
  s["algorithm"]["model_sync_every"] = 0;
  const auto off = simulate_scenario(s);
  ASSERT_TRUE(off.ok) << off.error;
  int differ = 0;
  for (const auto& p : off.final_params) differ += p != off.final_params[0];
  EXPECT_GT(differ, 0);
}

// ---------------------------------------------------------------------------------------------- WAGMA-SGD -----

TEST(WagmaSgd, DefaultGroupSizeIsSqrtPRoundedUpToAPowerOfTwo) {
  EXPECT_EQ(default_group_size(1), 1);
  EXPECT_EQ(default_group_size(2), 2);
  EXPECT_EQ(default_group_size(4), 2);
  EXPECT_EQ(default_group_size(8), 4);
  EXPECT_EQ(default_group_size(64), 8);
  EXPECT_EQ(default_group_size(128), 16);
  EXPECT_EQ(default_group_size(256), 16);
  const Scenario s = parse_scenario(scenario({{"name", "wagma"}}, 64, 10, 0), "");
  EXPECT_EQ(s.algorithm_params.get_int("group_size"), 8);
  EXPECT_EQ(s.resolved["algorithm"]["group_size"], 8);
}

TEST(WagmaSgd, GroupOfAllRanksAndTauOneIsSynchronousModelAveraging) {
  const auto reference = simulate_scenario(scenario({{"name", "local_sgd"}, {"tau", 1}}, 8, 12, 2));
  ASSERT_TRUE(reference.ok) << reference.error;
  const auto r = simulate_scenario(scenario({{"name", "wagma"}, {"group_size", 8}, {"tau", 1}}, 8, 12, 2));
  ASSERT_TRUE(r.ok) << r.error;
  expect_near_params(r.final_params, reference.final_params, 1e-6f);
  EXPECT_EQ(r.final_params, reference.final_params);  // every step is the same synchronous average
}

TEST(WagmaSgd, WaitAvoidingGroupOfAllRanksWithoutStragglersIsSynchronousModelAveraging) {
  // tau = 0: no global average ever; every step's model average is the wait-avoiding group allreduce over all.
  const auto reference = simulate_scenario(scenario({{"name", "local_sgd"}, {"tau", 1}}, 8, 12, 0));
  ASSERT_TRUE(reference.ok) << reference.error;
  const auto r = simulate_scenario(scenario({{"name", "wagma"}, {"group_size", 8}, {"tau", 0}}, 8, 12, 0));
  ASSERT_TRUE(r.ok) << r.error;
  expect_near_params(r.final_params, reference.final_params, 1e-5f);
  EXPECT_DOUBLE_EQ(r.summary["mean_active_processes"].get<double>(), 8.0);
}

TEST(WagmaSgd, WithoutGroupAveragingIsLocalSgdWithTheSameTau) {
  for (int tau : {1, 3, 5}) {
    SCOPED_TRACE("tau " + std::to_string(tau));
    const auto reference = simulate_scenario(scenario({{"name", "local_sgd"}, {"tau", tau}}, 8, 12, 2));
    const auto r = simulate_scenario(
        scenario({{"name", "wagma"}, {"tau", tau}, {"wait_avoiding", false}, {"blocking_groups", false}}, 8, 12, 2));
    ASSERT_TRUE(reference.ok && r.ok) << reference.error << r.error;
    EXPECT_EQ(r.final_params, reference.final_params);
    EXPECT_DOUBLE_EQ(r.summary["throughput_steps_per_s"].get<double>(),
                     reference.summary["throughput_steps_per_s"].get<double>());
    EXPECT_TRUE(r.summary["mean_active_processes"].is_null());
  }
}

TEST(WagmaSgd, BlockingGroupsOfAllRanksAreSynchronousModelAveraging) {
  const auto reference = simulate_scenario(scenario({{"name", "local_sgd"}, {"tau", 1}}, 8, 12, 2));
  const auto r = simulate_scenario(scenario(
      {{"name", "wagma"}, {"group_size", 8}, {"tau", 0}, {"wait_avoiding", false}, {"blocking_groups", true}}, 8, 12, 2));
  ASSERT_TRUE(reference.ok && r.ok) << reference.error << r.error;
  EXPECT_EQ(r.final_params, reference.final_params);
}

TEST(WagmaSgd, WaitAvoidingGroupsBeatGlobalAveragingUnderStragglersAndStillLearn) {
  const auto local = simulate_scenario(scenario({{"name", "local_sgd"}, {"tau", 1}}, 16, 40, 2));
  const auto wagma = simulate_scenario(scenario({{"name", "wagma"}, {"membership_csv", true}}, 16, 40, 2));
  ASSERT_TRUE(local.ok && wagma.ok) << local.error << wagma.error;
  EXPECT_GT(wagma.summary["throughput_steps_per_s"].get<double>(),
            1.2 * local.summary["throughput_steps_per_s"].get<double>());
  const double nap = wagma.summary["mean_active_processes"];
  EXPECT_GT(nap, 8.0);
  EXPECT_LT(nap, 16.0);
  EXPECT_GT(wagma.summary["staleness_histogram"]["1"].get<int>(), 0);
  EXPECT_EQ(wagma.summary["metrics"]["group_active_processes"]["max"].get<double>(), 4.0);  // S = 4 for P = 16
  EXPECT_LT(wagma.summary["final_loss"].get<double>(), wagma.summary["initial_loss"].get<double>() / 2);
}

TEST(WagmaSgd, PairwiseSettingsWithoutGlobalAveragingRunAndLearn) {
  // The paper's AD-PSGD-like (alpha, S = 2, tau = infinity) and D-PSGD/SGP-like (beta) corners.
  for (bool alpha : {true, false}) {
    SCOPED_TRACE(alpha ? "wait-avoiding pairs" : "blocking pairs");
    const auto r = simulate_scenario(scenario(
        {{"name", "wagma"}, {"group_size", 2}, {"tau", 0}, {"wait_avoiding", alpha}, {"blocking_groups", !alpha}}, 8, 30, 2));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_LT(r.summary["final_loss"].get<double>(), r.summary["initial_loss"].get<double>() / 2);
    EXPECT_EQ(r.summary["metrics"]["group_active_processes"]["max"].get<double>(), 2.0);
  }
}

// WAGMA's Algorithm 2, lines 9-13, by hand: P = 4, S = 2, tau = 0, learning rate 0 (W' = W, only averaging moves
// the models), two steps; rank 3 is two group versions late at its step 0.
TEST(WagmaSgd, ALateRankAveragesWithTheSumOfItsOwnStepsGroup) {
  const ButterflyGrouping grouping(4, 2);
  ASSERT_EQ(grouping.group_of(3, 0).members, std::vector<int>({2, 3}));
  ASSERT_EQ(grouping.group_of(3, 1).members, std::vector<int>({1, 3}));
  ASSERT_EQ(grouping.group_of(0, 1).members, std::vector<int>({0, 2}));
  const auto r = run_algorithm(late_rank_run("wagma", {{"group_size", 2}, {"tau", 0}}, 2, 0.0));
  ASSERT_TRUE(r.ok) << r.error;
  // Rank 3's agent had executed versions 0 and 1 (at about 1 s and 2 s) before its call for step 0 at 2.2 s.
  EXPECT_GT(version_end(r, 3, 1), 0.0);
  EXPECT_LT(version_end(r, 3, 1), 2.2);
  const auto& w = r.initial;
  // Step 0 (groups {0,1}, {2,3}): ranks 0-2 are in time; rank 3's agent contributed its initial model W3.
  const auto a01 = half(plus(w[0], w[1]));           // ranks 0 and 1: sum / S
  const auto a2 = half(plus(w[2], w[3]));            // rank 2: sum / S
  const auto sum0_23 = plus(w[2], w[3]);             // W_0^sum of rank 3's group
  const auto w3_step0 = stale_average(sum0_23, w[3], 2);  // rank 3, late: (W_0^sum + W'_0) / 3
  // Step 1 (groups {0,2}, {1,3}), at 2 s: rank 3 still computes and contributes W3 again.
  const auto sum1_13 = plus(a01, w[3]);
  EXPECT_EQ(r.final[0], half(plus(a01, a2)));
  EXPECT_EQ(r.final[2], half(plus(a01, a2)));
  EXPECT_EQ(r.final[1], half(sum1_13));
  EXPECT_EQ(r.final[3], stale_average(sum1_13, w3_step0, 2));  // its step 1: (W_1^sum + W'_1) / 3
}

// late_result = newest: fflib2's single receive buffer. At its step 0 rank 3 finds step 1's sum there (another
// group's), and at its step 1 the same sum again.
TEST(WagmaSgd, NewestLateResultAveragesWithTheReceiveBufferAsFflib2Does) {
  const auto r =
      run_algorithm(late_rank_run("wagma", {{"group_size", 2}, {"tau", 0}, {"late_result", "newest"}}, 2, 0.0));
  ASSERT_TRUE(r.ok) << r.error;
  const auto& w = r.initial;
  const auto sum1_13 = plus(half(plus(w[0], w[1])), w[3]);
  const auto w3_step0 = stale_average(sum1_13, w[3], 2);
  EXPECT_EQ(r.final[3], stale_average(sum1_13, w3_step0, 2));
}

TEST(WagmaSgd, BadSettingsAreRejectedWithTheFieldNamed) {
  auto bad = scenario({{"name", "wagma"}, {"wait_avoiding", true}, {"blocking_groups", true}}, 8, 10, 0);
  EXPECT_NE(scenario_error(bad).find("algorithm.blocking_groups"), std::string::npos) << scenario_error(bad);
  bad = scenario({{"name", "wagma"}, {"group_size", 3}}, 8, 10, 0);
  EXPECT_NE(scenario_error(bad).find("algorithm.group_size"), std::string::npos) << scenario_error(bad);
  bad = scenario({{"name", "wagma"}, {"group_size", 16}}, 8, 10, 0);
  EXPECT_NE(scenario_error(bad).find("algorithm.group_size"), std::string::npos) << scenario_error(bad);
  bad = scenario({{"name", "wagma"}}, 12, 10, 0);
  EXPECT_NE(scenario_error(bad).find("power-of-two"), std::string::npos) << scenario_error(bad);
  bad = scenario({{"name", "eager_sgd"}, {"collective", "quorum"}}, 8, 10, 0);
  EXPECT_NE(scenario_error(bad).find("algorithm.collective"), std::string::npos) << scenario_error(bad);
  // Local SGD mode needs no groups, so any P is fine.
  EXPECT_EQ(scenario_error(scenario({{"name", "wagma"}, {"wait_avoiding", false}}, 12, 10, 0)), "");
}

// ------------------------------------------------------------------------------------------ microbenchmark -----

TEST(CollectiveBench, ReproducesTheOrderingOfFigureNine) {
  auto run = [](const char* collective) {
    nlohmann::json s = {
        {"name", "bench"},
        {"platform", {{"name", "piz_daint"}, {"nodes", 16}}},
        {"workload", {{"profile", "resnet50_p100"}, {"iterations", 16}, {"compute", {{"kind", "constant"}, {"seconds", 0.0}}}}},
        {"imbalance", {{"kind", "linear_skew"}, {"step_s", 0.001}}},
        {"algorithm", {{"name", "collective_bench"}, {"collective", collective}, {"message_bytes", 4096}}},
        {"output", {{"progress", false}}}};
    const auto r = simulate_scenario(s);
    EXPECT_TRUE(r.ok) << r.error;
    return r.summary;
  };
  const auto sync = run("sync"), solo = run("solo"), majority = run("majority"), group = run("group");
  const double l_sync = sync["metrics"]["latency_s"]["mean"], l_solo = solo["metrics"]["latency_s"]["mean"],
               l_majority = majority["metrics"]["latency_s"]["mean"];
  // Synchronous: rank r waits for rank 15, (15 - r) ms, 7.5 ms on average.
  EXPECT_NEAR(l_sync, 7.5e-3, 0.5e-3);
  EXPECT_LT(l_solo, l_sync / 20);
  EXPECT_LT(l_majority, l_sync / 1.5);
  EXPECT_GT(l_majority, l_solo);
  EXPECT_DOUBLE_EQ(sync["mean_active_processes"].get<double>(), 16.0);
  EXPECT_DOUBLE_EQ(solo["mean_active_processes"].get<double>(), 1.0);  // only rank 0 is ever in time
  const double nap = majority["mean_active_processes"];
  EXPECT_GT(nap, 4.0);  // initiator uniform over 16 ranks: 8.5 expected
  EXPECT_LT(nap, 13.0);
  EXPECT_DOUBLE_EQ(group["mean_active_processes"].get<double>(), 1.0);
}

}  // namespace quorum
