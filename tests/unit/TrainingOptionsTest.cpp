// The math block's partition, learning-rate schedule and scaling, and targets: defaults, resolved values, and
// errors that name the field.
#include "sim/model/TrainingOptions.hpp"

#include <gtest/gtest.h>

#include "sim/model/Scenario.hpp"

namespace quorum {

namespace {

nlohmann::json scenario(const nlohmann::json& math, const std::string& algorithm = "allreduce") {
  return {{"name", "t"},
          {"platform", {{"name", "piz_daint"}, {"nodes", 8}}},
          {"workload", {{"profile", "resnet50_p100"}, {"iterations", 100}}},
          {"algorithm", {{"name", algorithm}}},
          {"math", math}};
}

// The failing field and its message, or "(no error)".
std::pair<std::string, std::string> error_of(const nlohmann::json& math) {
  try {
    parse_scenario(scenario(math), "");
  } catch (const ScenarioError& e) {
    return {e.field(), e.what()};
  }
  return {"(no error)", ""};
}

const nlohmann::json kHyperplane = {{"model", "hyperplane"}, {"dim", 4}, {"train_size", 64}, {"test_size", 8}};

nlohmann::json hyperplane_with(const nlohmann::json& extra) {
  nlohmann::json m = kHyperplane;
  m.update(extra);
  return m;
}

}  // namespace

TEST(TrainingOptions, DefaultsAreIidConstantUnscaledAndNoTarget) {
  const Scenario s = parse_scenario(scenario(kHyperplane), "");
  EXPECT_EQ(s.math.partition.kind, "iid");
  EXPECT_EQ(s.math.sgd.schedule.kind, "constant");
  EXPECT_EQ(s.math.sgd.lr, 0.1);
  EXPECT_FALSE(s.math.target_accuracy);
  EXPECT_FALSE(s.math.target_loss);
  const auto& math = s.resolved["math"];
  EXPECT_EQ(math["partition"], nlohmann::json({{"kind", "iid"}}));
  EXPECT_EQ(math["lr_schedule"], nlohmann::json({{"kind", "constant"}, {"warmup_steps", 0}}));
  EXPECT_EQ(math["lr_scaling"], "none");
  EXPECT_EQ(math["reference_batch"], 256);
  EXPECT_EQ(math["peak_lr"], 0.1);
  EXPECT_FALSE(math.contains("target_accuracy"));
}

TEST(TrainingOptions, LinearScalingMultipliesByTrainingRanksTimesBatchOverReference) {
  const Scenario s =
      parse_scenario(scenario(hyperplane_with({{"lr", 0.1}, {"batch", 64}, {"lr_scaling", "linear"}})), "");
  EXPECT_DOUBLE_EQ(s.math.sgd.lr, 0.1 * 8 * 64 / 256);
  EXPECT_DOUBLE_EQ(s.resolved["math"]["peak_lr"].get<double>(), 0.2);
  EXPECT_EQ(s.resolved["math"]["lr"], 0.1);
  // A parameter server's server ranks compute no gradients: they do not count.
  auto ps = scenario(hyperplane_with({{"lr", 0.1}, {"batch", 64}, {"lr_scaling", "linear"}, {"reference_batch", 64}}),
                     "async_ps");
  ps["algorithm"]["servers"] = 2;
  EXPECT_DOUBLE_EQ(parse_scenario(ps, "").math.sgd.lr, 0.1 * 6);
}

TEST(TrainingOptions, SchedulesResolveTheirOwnFields) {
  const Scenario step = parse_scenario(
      scenario(hyperplane_with({{"lr_schedule", {{"kind", "step"}, {"milestones", {30, 60}}, {"warmup_steps", 5}}}})),
      "");
  EXPECT_EQ(step.math.sgd.schedule.milestones, (std::vector<std::int64_t>{30, 60}));
  EXPECT_EQ(step.math.sgd.schedule.warmup_steps, 5);
  EXPECT_EQ(step.resolved["math"]["lr_schedule"]["gamma"], 0.1);
  const Scenario cosine =
      parse_scenario(scenario(hyperplane_with({{"lr_schedule", {{"kind", "cosine"}, {"min_lr", 0.001}}}})), "");
  EXPECT_EQ(cosine.math.sgd.schedule.total_steps, 100);  // the run's iterations
  EXPECT_EQ(cosine.math.sgd.schedule.min_lr, 0.001);
}

TEST(TrainingOptions, BadInputNamesTheField) {
  EXPECT_EQ(error_of(hyperplane_with({{"partition", {{"kind", "dirichlet"}, {"alpha", 0.1}}}})).first,
            "math.partition.kind");
  const auto [field, message] = error_of(hyperplane_with({{"partition", {{"kind", "shards"}}}}));
  EXPECT_EQ(field, "math.partition.kind");
  EXPECT_NE(message.find("softmax"), std::string::npos) << message;  // the models that have labels
  EXPECT_EQ(error_of({{"partition", {{"kind", "dirichlet"}}}}).first, "math.partition.kind");  // math off
  EXPECT_EQ(error_of({{"partition", {{"kind", "random"}}}}).first, "math.partition.kind");
  EXPECT_EQ(error_of(hyperplane_with({{"partition", {{"kind", "iid"}, {"alpha", 1}}}})).first, "math.partition.alpha");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_scaling", "sqrt"}})).first, "math.lr_scaling");
  EXPECT_EQ(error_of(hyperplane_with({{"reference_batch", 0}})).first, "math.reference_batch");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_schedule", {{"kind", "step"}}}})).first, "math.lr_schedule.milestones");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_schedule", {{"kind", "step"}, {"every", 10}, {"milestones", {5}}}}})).first,
            "math.lr_schedule.milestones");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_schedule", {{"kind", "step"}, {"milestones", {60, 30}}}}})).first,
            "math.lr_schedule.milestones");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_schedule", {{"kind", "step"}, {"every", 10}, {"gamma", 0}}}})).first,
            "math.lr_schedule.gamma");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_schedule", {{"kind", "cosine"}, {"min_lr", 1.0}}}})).first,
            "math.lr_schedule.min_lr");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_schedule", {{"kind", "cosine"}, {"warmup_steps", 100}}}})).first,
            "math.lr_schedule.warmup_steps");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_schedule", {{"kind", "constant"}, {"gamma", 0.5}}}})).first,
            "math.lr_schedule.gamma");
  EXPECT_EQ(error_of(hyperplane_with({{"lr_schedule", {{"kind", "constant"}, {"warmup_steps", -1}}}})).first,
            "math.lr_schedule.warmup_steps");
  EXPECT_EQ(error_of(hyperplane_with({{"target_accuracy", 0.5}, {"target_loss", 1.0}})).first, "math.target_loss");
  EXPECT_EQ(error_of(hyperplane_with({{"target_accuracy", 0.5}})).first, "math.target_accuracy");  // regression
  EXPECT_EQ(error_of(hyperplane_with({{"target_loss", 0.0}})).first, "math.target_loss");
  EXPECT_EQ(error_of({{"target_loss", 1.0}}).first, "math.target_loss");  // math off
  EXPECT_EQ(error_of(hyperplane_with({{"target_loss", 1.0}})).first, "(no error)");
}

TEST(TrainingOptions, LabelPartitionsAndAccuracyTargetsOnFashionMnist) {
  const nlohmann::json softmax = {{"model", "softmax"},
                                  {"partition", {{"kind", "dirichlet"}, {"alpha", 0.1}}},
                                  {"target_accuracy", 0.8}};
  std::pair<std::string, std::string> e;
  try {
    const Scenario s = parse_scenario(scenario(softmax), "");
    EXPECT_EQ(s.math.partition.kind, "dirichlet");
    EXPECT_EQ(s.math.partition.alpha, 0.1);
    EXPECT_EQ(s.math.target_accuracy, 0.8);
  } catch (const ScenarioError& err) {
    if (err.field() == "math.dataset_dir") GTEST_SKIP() << "Fashion-MNIST is not installed";
    throw;
  }
  nlohmann::json bad = softmax;
  bad["partition"] = {{"kind", "dirichlet"}, {"alpha", -1}};
  EXPECT_EQ(error_of(bad).first, "math.partition.alpha");
  bad["partition"] = {{"kind", "dirichlet"}};
  EXPECT_EQ(error_of(bad).first, "math.partition.alpha");  // no default: the skew is the experiment
  bad["partition"] = {{"kind", "shards"}, {"per_rank", 0}};
  EXPECT_EQ(error_of(bad).first, "math.partition.per_rank");
  bad = softmax;
  bad["target_accuracy"] = 1.5;
  EXPECT_EQ(error_of(bad).first, "math.target_accuracy");
}

}  // namespace quorum
