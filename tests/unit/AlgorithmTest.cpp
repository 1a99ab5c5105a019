// Allreduce-SGD and local SGD: replicas, averaging, the one-rank case, and their timing against hand derivations.
#include <gtest/gtest.h>

#include "algorithms/Algorithm.hpp"
#include "kernels/Trainer.hpp"
#include "tests/support/ScenarioHarness.hpp"

namespace quorum {

using testing::simulate_scenario;

namespace {
nlohmann::json hyperplane_scenario(const std::string& algorithm, int nodes, int iterations) {
  return {{"name", "algorithm-test"},
          {"seed", 3},
          {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
          {"workload", {{"profile", "hyperplane"}, {"iterations", iterations}, {"compute", {{"kind", "constant"}, {"seconds", 0.2}}}}},
          {"imbalance", {{"kind", "random_delay"}, {"ranks", 1}, {"delay_s", 0.1}}},
          {"algorithm", {{"name", algorithm}}},
          {"math", {{"model", "hyperplane"}, {"batch", 32}, {"dim", 64}, {"train_size", 2048}, {"test_size", 512}, {"lr", 0.02}}},
          {"output", {{"progress", false}}}};
}
}  // namespace

TEST(AllreduceSgd, ReplicasStayBitIdentical) {
  const auto r = simulate_scenario(hyperplane_scenario("allreduce", 6, 20));
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.final_params.size(), 6u);
  for (const auto& p : r.final_params) EXPECT_EQ(p, r.final_params[0]);
  EXPECT_LT(r.summary["final_loss"].get<double>(), r.summary["initial_loss"].get<double>());
}

TEST(LocalSgd, TauOneAveragesEveryStepAndLargerTauOnlyAtSyncPoints) {
  auto s = hyperplane_scenario("local_sgd", 4, 12);
  s["algorithm"]["tau"] = 1;
  auto r = simulate_scenario(s);
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& p : r.final_params) EXPECT_EQ(p, r.final_params[0]);
  s["algorithm"]["tau"] = 5;  // 12 steps: last average after step 10, then 2 local steps
  r = simulate_scenario(s);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.final_params[1], r.final_params[0]);
  s["algorithm"]["tau"] = 4;  // 12 steps end on an average
  r = simulate_scenario(s);
  ASSERT_TRUE(r.ok) << r.error;
  for (const auto& p : r.final_params) EXPECT_EQ(p, r.final_params[0]);
}

TEST(Algorithms, WithOneRankEveryAlgorithmIsPlainSgd) {
  // Reference: one Trainer taking local steps.
  const auto scenario = hyperplane_scenario("allreduce", 1, 15);
  MathConfig c;
  c.model = "hyperplane";
  c.batch = 32;
  c.hyperplane.dim = 64;
  c.hyperplane.train_size = 2048;
  c.hyperplane.test_size = 512;
  c.sgd.lr = 0.02;
  Trainer reference(make_math_setup(c, 3), 0, 1);
  for (int step = 0; step < 15; ++step) reference.local_step(step);
  for (const auto& info : algorithm_catalog()) {
    SCOPED_TRACE(info.name);
    auto s = scenario;
    s["algorithm"] = nlohmann::json{{"name", info.name}};
    const auto r = simulate_scenario(s);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.final_params.size(), 1u);
    ASSERT_EQ(r.final_params[0].size(), reference.params().size());
    for (std::size_t i = 0; i < reference.params().size(); ++i)
      ASSERT_NEAR(r.final_params[0][i], reference.params()[i], 1e-6f * (1 + std::abs(reference.params()[i])));
  }
}

TEST(Algorithms, HyperplaneLossFallsTenfold) {
  auto s = hyperplane_scenario("allreduce", 4, 150);
  s["math"]["lr"] = 0.05;
  const auto r = simulate_scenario(s);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_LT(r.summary["final_loss"].get<double>(), r.summary["initial_loss"].get<double>() / 10);
}

// Hand derivation of Allreduce-SGD's step time with k delayed ranks per step: every step waits for the slowest
// rank (compute + delay), then the ring allreduce moves 2 (P-1)/P of the model at the link bandwidth.
TEST(AllreduceSgd, ThroughputMatchesTheHandDerivation) {
  for (const char* fidelity : {"phase", "chunk"}) {
    SCOPED_TRACE(fidelity);
    nlohmann::json s = {{"name", "derivation"},
                        {"platform", {{"name", "piz_daint"}, {"nodes", 16}}},
                        {"workload", {{"profile", "resnet50_p100"}, {"iterations", 20}}},
                        {"imbalance", {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.32}}},
                        {"algorithm", {{"name", "allreduce"}}},
                        {"fidelity", fidelity},
                        {"output", {{"progress", false}}}};
    const auto r = simulate_scenario(s);
    ASSERT_TRUE(r.ok) << r.error;
    const double bytes = 25'559'081.0 * 4;
    const double ring = 2.0 * 15 / 16 * bytes / 5.25e9;
    const double expected = 1.0 / (1 / 1.56 + 0.32 + ring);
    EXPECT_NEAR(r.summary["throughput_steps_per_s"].get<double>(), expected, 0.02 * expected);
  }
}

}  // namespace quorum
