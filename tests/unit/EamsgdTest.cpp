// EAMSGD (Zhang et al. 2015, Algorithm 2; the AD-PSGD paper's asynchronous baseline): the elastic exchange by hand,
// one worker's whole run against Algorithm 2 replayed with a Trainer, the invariants of many workers (servers do not
// train, every rank ends with the centre, one exchange per tau steps and server), no deadlock under a severe
// slowdown, and the parameter checks.
#include <gtest/gtest.h>

#include <cmath>

#include "algorithms/ps/Eamsgd.hpp"
#include "kernels/Trainer.hpp"
#include "sim/model/Scenario.hpp"
#include "tests/support/ScenarioHarness.hpp"

namespace quorum {

using testing::simulate_scenario;

namespace {

nlohmann::json eamsgd_scenario(int nodes, const nlohmann::json& algorithm, int iterations) {
  return {{"name", "eamsgd"},
          {"seed", 7},
          {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
          {"workload", {{"profile", "hyperplane"}, {"iterations", iterations},
                        {"compute", {{"kind", "constant"}, {"seconds", 0.2}}}}},
          {"imbalance", {{"kind", "random_delay"}, {"ranks", 1}, {"delay_s", 0.1}}},
          {"algorithm", algorithm},
          {"math", {{"model", "hyperplane"}, {"batch", 32}, {"dim", 64}, {"train_size", 2048}, {"test_size", 256},
                    {"lr", 0.01}}},
          {"output", {{"progress", false}}}};
}

std::int64_t histogram_total(const nlohmann::json& h) {
  std::int64_t total = 0;
  for (const auto& [bucket, count] : h.items()) total += count.get<std::int64_t>();
  return total;
}

}  // namespace

TEST(Eamsgd, ElasticExchangeMovesWorkerAndCentreTowardEachOtherByHand) {
  // centre (1, 2), worker (3, -2), alpha 1/4: e = alpha (x - centre) = (0.5, -1); centre + e = (1.5, 1) and the
  // worker's x - e = (2.5, -1): both moved a quarter of the way, and their sum is unchanged.
  std::vector<float> centre = {1.0f, 2.0f};
  const std::vector<float> worker = {3.0f, -2.0f};
  std::vector<float> e;
  elastic_exchange(centre, worker, 0.25f, e);
  EXPECT_EQ(e, (std::vector<float>{0.5f, -1.0f}));
  EXPECT_EQ(centre, (std::vector<float>{1.5f, 1.0f}));
  EXPECT_EQ(worker[0] - e[0], 2.5f);
  EXPECT_EQ(worker[1] - e[1], -1.0f);
}

TEST(Eamsgd, OneWorkerFollowsAlgorithm2ExactlyByHand) {
  // Rank 0 holds the centre, rank 1 is the only worker: no other worker can interleave, so the whole run is
  // deterministic. Replay Algorithm 2 with a Trainer of the same data shard: at step t the gradient at x; if tau
  // divides t, e = alpha (x - centre), x -= e, centre += e; then the momentum step. Every rank ends with the centre.
  constexpr int kSteps = 7, kTau = 3;
  constexpr float kAlpha = 0.3f;
  const nlohmann::json scenario =
      eamsgd_scenario(2, {{"name", "eamsgd"}, {"tau", kTau}, {"moving_rate", kAlpha}}, kSteps);
  const auto r = simulate_scenario(scenario);
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.final_params.size(), 2u);

  const Scenario parsed = parse_scenario(scenario, "");
  Trainer worker(make_math_setup(parsed.math, parsed.seed), 1, 2);
  std::vector<float> centre = worker.params();  // every rank starts from the same model
  auto& x = worker.params();
  std::vector<float> grad;
  int exchanges = 0;
  for (int step = 0; step < kSteps; ++step) {
    worker.compute_gradient(step, grad);
    if (step % kTau == 0) {
      ++exchanges;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const float e = kAlpha * (x[i] - centre[i]);
        centre[i] += e;
        x[i] -= e;
      }
    }
    worker.apply_gradient(grad);
  }
  EXPECT_EQ(exchanges, 3);  // steps 0, 3 and 6
  EXPECT_NE(centre, x);     // the centre is not simply the worker's model
  EXPECT_EQ(r.final_params[0], centre);
  EXPECT_EQ(r.final_params[1], centre);
  EXPECT_EQ(histogram_total(r.summary["histograms"]["eamsgd.staleness"]), exchanges);
}

TEST(Eamsgd, ServersDoNotTrainEveryRankEndsWithTheCentreAndExchangesComeEveryTauSteps) {
  constexpr int kNodes = 6, kSteps = 20;
  for (int servers : {1, 2}) {
    for (int tau : {1, 3}) {
      SCOPED_TRACE(std::to_string(servers) + " servers, tau " + std::to_string(tau));
      const auto r =
          simulate_scenario(eamsgd_scenario(kNodes, {{"name", "eamsgd"}, {"servers", servers}, {"tau", tau}}, kSteps));
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_EQ(r.summary["training_ranks"].get<int>(), kNodes - servers);
      for (const auto& p : r.final_params) EXPECT_EQ(p, r.final_params[0]);
      EXPECT_LT(r.summary["final_loss"].get<double>(), 0.5 * r.summary["initial_loss"].get<double>());
      // Each worker exchanges at steps 0, tau, 2 tau, ... with every server.
      const int per_worker = (kSteps + tau - 1) / tau;
      EXPECT_EQ(histogram_total(r.summary["histograms"]["eamsgd.staleness"]),
                (kNodes - servers) * per_worker * servers);
      // The default moving rate is 0.9 / workers (Zhang et al.'s beta = p alpha = 0.9).
      EXPECT_DOUBLE_EQ(r.summary["scenario"]["algorithm"]["moving_rate"].get<double>(), 0.9 / (kNodes - servers));
    }
  }
}

TEST(Eamsgd, EndsWithoutDeadlockWhenOneWorkerIsAHundredTimesSlower) {
  // A worker 100x slower, redrawn every 5 steps, tau 2 and 12 steps (the last exchange, at step 10, is not the last
  // step): the servers still see every worker's last push, the run ends, and every rank holds the centre.
  nlohmann::json s = eamsgd_scenario(8, {{"name", "eamsgd"}, {"tau", 2}}, 12);
  s["imbalance"] = {{"kind", "slow_worker"}, {"ranks", 1}, {"factor", 100}, {"redraw_every", 5}};
  const auto r = simulate_scenario(s);
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& p : r.final_params) EXPECT_EQ(p, r.final_params[0]);
  EXPECT_EQ(histogram_total(r.summary["histograms"]["eamsgd.staleness"]), 7 * 6);  // steps 0, 2, ..., 10
}

TEST(Eamsgd, BadParametersAreRefusedNamingTheField) {
  const auto expect_field = [](const nlohmann::json& algorithm, int nodes, const std::string& field) {
    try {
      parse_scenario(eamsgd_scenario(nodes, algorithm, 4), "");
      ADD_FAILURE() << "accepted " << algorithm.dump();
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  };
  expect_field({{"name", "eamsgd"}, {"moving_rate", 1.5}}, 4, "algorithm.moving_rate");
  expect_field({{"name", "eamsgd"}, {"moving_rate", 0}}, 4, "algorithm.moving_rate");
  expect_field({{"name", "eamsgd"}, {"tau", 0}}, 4, "algorithm.tau");
  expect_field({{"name", "eamsgd"}, {"servers", 4}}, 4, "algorithm.servers");
}

}  // namespace quorum
