// math.lr_schedule: the learning rate at given steps (warmup ramp, step decay, cosine), and that the optimiser and
// the Trainer apply it at the rank's own step.
#include "kernels/optim/LrSchedule.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "kernels/Trainer.hpp"
#include "kernels/optim/SgdOptimizer.hpp"

namespace quorum {

namespace {
LrSchedule schedule(const std::string& kind) {
  LrSchedule s;
  s.kind = kind;
  return s;
}
}  // namespace

TEST(LrSchedule, ConstantIsThePeakItself) {
  const LrSchedule s = schedule("constant");
  for (std::int64_t step : {0, 1, 99, 100000}) EXPECT_EQ(learning_rate_at(s, 0.1, step), 0.1);
}

TEST(LrSchedule, WarmupRampsLinearlyFromPeakOverWToPeak) {
  LrSchedule s = schedule("constant");
  s.warmup_steps = 4;
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.8, 0), 0.2);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.8, 1), 0.4);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.8, 3), 0.8);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.8, 4), 0.8);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.8, 50), 0.8);
}

TEST(LrSchedule, StepDecayAtMilestonesOrEveryKSteps) {
  LrSchedule s = schedule("step");
  s.gamma = 0.1;
  s.milestones = {30, 60};
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 0), 1.0);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 29), 1.0);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 30), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 59), 0.1);
  EXPECT_NEAR(learning_rate_at(s, 1.0, 60), 0.01, 1e-15);
  EXPECT_NEAR(learning_rate_at(s, 1.0, 1000), 0.01, 1e-15);
  LrSchedule e = schedule("step");
  e.gamma = 0.5;
  e.every = 10;
  EXPECT_DOUBLE_EQ(learning_rate_at(e, 1.0, 9), 1.0);
  EXPECT_DOUBLE_EQ(learning_rate_at(e, 1.0, 10), 0.5);
  EXPECT_DOUBLE_EQ(learning_rate_at(e, 1.0, 25), 0.25);
}

TEST(LrSchedule, CosineFromPeakToMinOverTheRun) {
  LrSchedule s = schedule("cosine");
  s.total_steps = 100;
  s.min_lr = 0.01;
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.1, 0), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.1, 50), 0.055);  // halfway: the mean of peak and floor
  EXPECT_NEAR(learning_rate_at(s, 0.1, 25), 0.01 + 0.09 * (1 + std::cos(M_PI / 4)) / 2, 1e-15);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.1, 100), 0.01);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0.1, 150), 0.01);  // past the horizon: the floor
  EXPECT_GT(learning_rate_at(s, 0.1, 99), 0.01);
}

TEST(LrSchedule, CosineWithWarmupStartsItsDecayAfterTheWarmup) {
  LrSchedule s = schedule("cosine");
  s.total_steps = 110;
  s.warmup_steps = 10;
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 0), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 9), 1.0);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 10), 1.0);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 60), 0.5);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1.0, 110), 0.0);
}

TEST(LrSchedule, OptimizerStepsWithTheScheduledRate) {
  SgdConfig c;
  c.lr = 1.0;
  c.momentum = 0.0;
  c.schedule = schedule("step");
  c.schedule.gamma = 0.5;
  c.schedule.milestones = {2};
  SgdOptimizer opt(c, 1);
  std::vector<float> w{0.0f};
  const std::vector<float> g{1.0f};
  opt.apply(w, g, 0);
  EXPECT_FLOAT_EQ(w[0], -1.0f);
  opt.apply(w, g, 2);
  EXPECT_FLOAT_EQ(w[0], -1.5f);
}

// The Trainer's update uses the step of the gradient it computed last.
TEST(LrSchedule, TrainerUpdatesAtTheStepOfItsLastGradient) {
  MathConfig c;
  c.model = "hyperplane";
  c.batch = 8;
  c.hyperplane.dim = 4;
  c.hyperplane.train_size = 64;
  c.hyperplane.test_size = 8;
  c.sgd.momentum = 0.0;
  c.sgd.lr = 0.1;
  c.sgd.schedule = schedule("step");
  c.sgd.schedule.gamma = 0.5;
  c.sgd.schedule.milestones = {5};
  const auto setup = make_math_setup(c, 3);
  Trainer a(setup, 0, 1), b(setup, 0, 1);
  std::vector<float> g;
  a.compute_gradient(7, g);
  const std::vector<float> before = a.params();
  a.apply_gradient(g);
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_FLOAT_EQ(a.params()[i], before[i] - 0.05f * g[i]);
  b.local_step(0);
  std::vector<float> g0;
  Trainer fresh(setup, 0, 1);
  fresh.compute_gradient(0, g0);
  for (std::size_t i = 0; i < g0.size(); ++i) EXPECT_FLOAT_EQ(b.params()[i], before[i] - 0.1f * g0[i]);
}

}  // namespace quorum
