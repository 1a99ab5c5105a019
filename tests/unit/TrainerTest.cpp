#include "kernels/Trainer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

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

// The batch and the local step's gradient live in one scratch per thread, which every rank computing on that thread
// shares. So a rank's gradients, losses and parameters must not depend on which thread computes them, nor on what
// other ranks (of another model and batch shape too) computed on it before: the same bits alone on a fresh thread,
// interleaved with others on one thread, and spread over two threads at once.
TEST(Trainer, ScratchPerThreadLeavesNoTraceBetweenRanksOrThreads) {
  MathConfig c;
  c.model = "softmax";
  c.batch = 24;
  const auto softmax = make_math_setup(c, 5);
  const auto hyperplane = hyperplane_setup();
  constexpr int kRanks = 4, kSteps = 3;
  struct Record {
    std::vector<std::vector<float>> gradients, params;
    std::vector<double> losses;
    bool operator==(const Record&) const = default;
  };
  // One step of a rank: a gradient (kept), then a local step (its parameters kept).
  const auto step = [](Trainer& t, int s, Record& r) {
    std::vector<float> g;
    t.compute_gradient(s, g);
    r.gradients.push_back(g);
    r.losses.push_back(t.last_loss());
    t.local_step(s);
    r.params.push_back(t.params());
  };

  std::vector<Record> alone(kRanks);
  for (int rank = 0; rank < kRanks; ++rank) {
    std::thread([&, rank] {
      Trainer t(softmax, rank, kRanks);
      for (int s = 0; s < kSteps; ++s) step(t, s, alone[static_cast<std::size_t>(rank)]);
    }).join();
  }

  std::vector<Record> interleaved(kRanks);
  {
    std::vector<Trainer> trainers;
    for (int rank = 0; rank < kRanks; ++rank) trainers.emplace_back(softmax, rank, kRanks);
    Trainer other(hyperplane, 0, 1);
    Record ignored;
    for (int s = 0; s < kSteps; ++s) {
      for (int rank = kRanks - 1; rank >= 0; --rank) {
        step(other, s, ignored);  // another model and batch shape in between
        step(trainers[static_cast<std::size_t>(rank)], s, interleaved[static_cast<std::size_t>(rank)]);
      }
    }
  }

  std::vector<Record> two_threads(kRanks);
  {
    std::vector<Trainer> trainers;
    for (int rank = 0; rank < kRanks; ++rank) trainers.emplace_back(softmax, rank, kRanks);
    const auto half = [&](int first) {
      for (int s = 0; s < kSteps; ++s)
        for (int rank = first; rank < kRanks; rank += 2)
          step(trainers[static_cast<std::size_t>(rank)], s, two_threads[static_cast<std::size_t>(rank)]);
    };
    std::thread odd(half, 1);
    half(0);
    odd.join();
  }

  for (int rank = 0; rank < kRanks; ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    ASSERT_EQ(alone[r].gradients.size(), static_cast<std::size_t>(kSteps));
    EXPECT_TRUE(interleaved[r] == alone[r]) << "rank " << rank << " interleaved on one thread";
    EXPECT_TRUE(two_threads[r] == alone[r]) << "rank " << rank << " on two threads";
  }
  EXPECT_NE(alone[0].gradients, alone[1].gradients);  // the ranks' batches differ, so a leak would show
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
