// Partitions, schedules and time to target through a whole simulated run of the softmax proxy (Fashion-MNIST).
#include <gtest/gtest.h>

#include <numeric>

#include "sim/model/TrainingOptions.hpp"
#include "kernels/data/FashionMnist.hpp"
#include "tests/support/ScenarioHarness.hpp"

namespace quorum {

using testing::simulate_scenario;

namespace {

constexpr std::int64_t kIterations = 45, kEvalEvery = 10;

nlohmann::json softmax_run(const nlohmann::json& extra_math = nlohmann::json::object(),
                           const std::string& algorithm = "allreduce") {
  nlohmann::json math = {{"model", "softmax"}, {"batch", 32}, {"lr", 0.05}, {"eval_every", kEvalEvery}};
  math.update(extra_math);
  return {{"name", "convergence"},
          {"seed", 3},
          {"platform", {{"name", "piz_daint"}, {"nodes", 4}}},
          {"workload", {{"profile", "resnet50_p100"}, {"iterations", kIterations}}},
          {"algorithm", {{"name", algorithm}}},
          {"math", math},
          {"output", {{"iterations_csv", false}, {"progress", false}}}};
}

class ConvergenceOptionsRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fashion_mnist_available(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST is not installed";
  }
};

}  // namespace

TEST_F(ConvergenceOptionsRun, ReachableTargetGivesAnEvaluationStepAndUnreachableGivesNull) {
  const auto reached = simulate_scenario(softmax_run({{"target_accuracy", 0.6}}));
  ASSERT_TRUE(reached.ok) << reached.error;
  const auto& s = reached.summary;
  ASSERT_FALSE(s["step_to_target"].is_null()) << s["evaluations"].dump();
  const auto step = s["step_to_target"].get<std::int64_t>();
  EXPECT_TRUE(step % kEvalEvery == 0 || step == kIterations) << step;
  EXPECT_EQ(s["target_resolution_steps"], kEvalEvery);
  // The time is that of the evaluation after that step, and the evaluation there reached the target.
  bool found = false;
  for (const auto& e : s["evaluations"])
    if (e["step"].get<std::int64_t>() + 1 == step) {
      found = true;
      EXPECT_EQ(e["time_s"], s["time_to_target_s"]);
      EXPECT_GE(e["test_accuracy"].get<double>(), 0.6);
    } else if (e["step"].get<std::int64_t>() + 1 < step) {
      EXPECT_LT(e["test_accuracy"].get<double>(), 0.6);
    }
  EXPECT_TRUE(found);
  EXPECT_GT(s["time_to_target_s"].get<double>(), 0.0);
  EXPECT_LE(s["time_to_target_s"].get<double>(), s["sim_time_s"].get<double>());

  const auto never = simulate_scenario(softmax_run({{"target_accuracy", 0.99}}));
  ASSERT_TRUE(never.ok) << never.error;
  EXPECT_TRUE(never.summary["step_to_target"].is_null());
  EXPECT_TRUE(never.summary["time_to_target_s"].is_null());
  EXPECT_EQ(never.summary["target_resolution_steps"], kEvalEvery);
  // Same run, same models: the target changes nothing but the summary.
  EXPECT_EQ(never.final_params, reached.final_params);

  // Evaluated only at the end: the resolution is the whole run.
  const auto none = simulate_scenario(softmax_run({{"eval_every", 0}, {"target_loss", 0.1}}));
  ASSERT_TRUE(none.ok) << none.error;
  EXPECT_TRUE(none.summary["step_to_target"].is_null());
  EXPECT_EQ(none.summary["target_resolution_steps"], kIterations);  // only the final evaluation
}

TEST_F(ConvergenceOptionsRun, DefaultsRunAsBeforeAndThePartitionIsInTheSummary) {
  const auto plain = simulate_scenario(softmax_run());
  const auto spelled = simulate_scenario(softmax_run({{"partition", {{"kind", "iid"}}},
                                                      {"lr_schedule", {{"kind", "constant"}}},
                                                      {"lr_scaling", "none"}}));
  ASSERT_TRUE(plain.ok && spelled.ok) << plain.error << spelled.error;
  EXPECT_EQ(plain.final_params, spelled.final_params);
  EXPECT_EQ(plain.summary["final_loss"], spelled.summary["final_loss"]);
  EXPECT_TRUE(plain.summary["step_to_target"].is_null());
  EXPECT_TRUE(plain.summary["target_resolution_steps"].is_null());
  const auto& partition = plain.summary["partition"];
  EXPECT_EQ(partition["kind"], "iid");
  ASSERT_EQ(partition["label_histogram"].size(), 4u);
  std::int64_t total = 0;
  for (const auto& row : partition["label_histogram"]) {
    ASSERT_EQ(row.size(), 10u);
    for (const auto& c : row) total += c.get<std::int64_t>();
  }
  EXPECT_EQ(total, 60000);
}

TEST_F(ConvergenceOptionsRun, DirichletAndShardsChangeTheRunAndSkewTheHistogram) {
  const auto iid = simulate_scenario(softmax_run());
  const auto dirichlet = simulate_scenario(softmax_run({{"partition", {{"kind", "dirichlet"}, {"alpha", 0.1}}}}));
  const auto shards = simulate_scenario(softmax_run({{"partition", {{"kind", "shards"}, {"per_rank", 2}}}}));
  ASSERT_TRUE(iid.ok && dirichlet.ok && shards.ok) << iid.error << dirichlet.error << shards.error;
  EXPECT_NE(iid.final_params, dirichlet.final_params);
  EXPECT_NE(iid.final_params, shards.final_params);
  for (const auto* run : {&dirichlet, &shards}) {
    const auto& h = run->summary["partition"]["label_histogram"];
    ASSERT_EQ(h.size(), 4u);
    std::int64_t total = 0;
    for (const auto& row : h)
      for (const auto& c : row) total += c.get<std::int64_t>();
    EXPECT_EQ(total, 60000);
  }
  // shards: 8 shards of 7,500 over 6,000-sample classes: at most 2 labels per shard, 4 per rank.
  for (const auto& row : shards.summary["partition"]["label_histogram"]) {
    int labels = 0;
    for (const auto& c : row) labels += c.get<std::int64_t>() > 0;
    EXPECT_LE(labels, 4);
  }
}

TEST_F(ConvergenceOptionsRun, ScheduleChangesTheRunAndIsResolved) {
  const auto constant = simulate_scenario(softmax_run());
  const auto cosine = simulate_scenario(
      softmax_run({{"lr_schedule", {{"kind", "cosine"}, {"warmup_steps", 5}}}, {"lr_scaling", "linear"}}));
  ASSERT_TRUE(constant.ok && cosine.ok) << constant.error << cosine.error;
  EXPECT_NE(constant.final_params, cosine.final_params);
  const auto& math = cosine.summary["scenario"]["math"];
  EXPECT_EQ(math["lr_schedule"]["kind"], "cosine");
  EXPECT_EQ(math["lr_schedule"]["min_lr"], 0.0);
  EXPECT_DOUBLE_EQ(math["peak_lr"].get<double>(), 0.05 * 4 * 32 / 256);
}

}  // namespace quorum
