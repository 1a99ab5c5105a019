#include "kernels/Trainer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

namespace quorum {

namespace {
std::shared_ptr<const MathSetup> hyperplane_setup(std::uint64_t seed = 7) {
  MathConfig c;
  c.model = "hyperplane";
  c.batch = 32;
  c.hyperplane.dim = 64;
  c.hyperplane.train_size = 1024;
  c.hyperplane.test_size = 256;
  c.hyperplane.noise_sd = 0.1;
  c.sgd.lr = 0.02;
  return make_math_setup(c, seed);
}
}  // namespace

TEST(Trainer, ReplicasStartEqualAndBatchesDependOnRankAndStep) {
  auto setup = hyperplane_setup();
  Trainer a(setup, 0, 4), b(setup, 1, 4), a2(setup, 0, 4);
  EXPECT_EQ(a.params(), b.params());
  std::vector<float> ga, gb, ga2;
  a.compute_gradient(3, ga);
  a2.compute_gradient(3, ga2);
  b.compute_gradient(3, gb);
  EXPECT_EQ(ga, ga2);  // same rank, same step: same batch
  EXPECT_NE(ga, gb);   // another rank's shard
  std::vector<float> ga_next;
  a.compute_gradient(4, ga_next);
  EXPECT_NE(ga, ga_next);
}

// The setup draws the initial parameters once and every Trainer copies them: the same bits as a Trainer drawing them
// itself (a setup assembled by hand has none), and another seed draws others.
TEST(Trainer, ReplicasCopyTheSetupsInitialParametersWhichEqualTheirOwnDraw) {
  MathConfig c;
  c.model = "softmax";
  const auto setup = make_math_setup(c, 5);
  ASSERT_EQ(setup->initial_params.size(), setup->model->num_params());
  auto by_hand = std::make_shared<MathSetup>(*setup);
  by_hand->initial_params.clear();
  const Trainer copied(setup, 3, 4), drawn(by_hand, 3, 4);
  EXPECT_EQ(copied.params(), drawn.params());
  EXPECT_EQ(copied.params(), setup->initial_params);
  EXPECT_NE(std::count(copied.params().begin(), copied.params().end(), 0.0f),
            static_cast<std::ptrdiff_t>(copied.params().size()));
  auto other_seed = std::make_shared<MathSetup>(*by_hand);
  other_seed->seed = 6;
  EXPECT_NE(Trainer(other_seed, 3, 4).params(), copied.params());
}

TEST(Trainer, LocalStepsReduceTheLoss) {
  auto setup = hyperplane_setup();
  Trainer t(setup, 0, 1);
  const double before = evaluate(*setup->model, t.params(), *setup->test).loss;
  for (int s = 0; s < 200; ++s) t.local_step(s);
  const double after = evaluate(*setup->model, t.params(), *setup->test).loss;
  EXPECT_LT(after, before / 10);
}

TEST(Trainer, MathOffIsANoOp) {
  MathConfig c;
  c.model = "none";
  auto setup = make_math_setup(c, 1);
  Trainer t(setup, 0, 2);
  EXPECT_FALSE(t.enabled());
  std::vector<float> g{1.0f};
  t.compute_gradient(0, g);
  EXPECT_TRUE(g.empty());
  t.local_step(0);
  EXPECT_TRUE(t.params().empty());
}

}  // namespace quorum
