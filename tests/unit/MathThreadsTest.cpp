// The ranks' math on several threads (RankMathPool, math.threads): every task runs once and is awaited, and a
// simulation gives bit for bit the same models and figures on one thread and on several.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "algorithms/Algorithm.hpp"
#include "sim/simgrid/RankMathPool.hpp"
#include "tests/support/ScenarioHarness.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::simulate_scenario;

TEST(RankMathPool, EveryTaskRunsOnceAndIsDoneWhenAwaited) {
  constexpr int kRanks = 64;
  RankMathPool pool(kRanks, 3);
  std::vector<std::atomic<int>> runs(kRanks);
  std::vector<double> results(kRanks, 0.0);
  for (int round = 0; round < 5; ++round) {
    for (int r = 0; r < kRanks; ++r)
      pool.submit(r, [&, r] {
        double x = 0;
        for (int i = 0; i < 20000 + 1000 * r; ++i) x += 1.0 / (1.0 + i);
        results[static_cast<std::size_t>(r)] = x;
        ++runs[static_cast<std::size_t>(r)];
      });
    // Await in reverse order: early ranks are then mostly done by workers, late ones run on this thread.
    for (int r = kRanks - 1; r >= 0; --r) {
      pool.await(r);
      EXPECT_EQ(runs[static_cast<std::size_t>(r)].load(), round + 1) << "rank " << r;
      EXPECT_GT(results[static_cast<std::size_t>(r)], 0.0);
      results[static_cast<std::size_t>(r)] = 0.0;
    }
  }
  pool.await(0);  // nothing pending: returns at once
}

TEST(RankMathPool, AnErrorIsKeptForTheComputingRankAndARankComputesOneThingAtATime) {
  RankMathPool pool(2, 2);
  pool.submit(0, [] { throw std::runtime_error("math failed"); });
  EXPECT_THROW(pool.submit(0, [] {}), std::logic_error);
  pool.submit(1, [] {});
  pool.await(0);  // never throws: any actor of the rank may await, destructors included
  pool.await(1);
  EXPECT_EQ(pool.take_error(1), nullptr);
  std::exception_ptr error = pool.take_error(0);
  ASSERT_NE(error, nullptr);
  EXPECT_THROW(std::rethrow_exception(error), std::runtime_error);
  EXPECT_EQ(pool.take_error(0), nullptr);
  EXPECT_THROW(RankMathPool(4, 1), std::logic_error);
}

// The rule that keeps results exact: a rank's math counts as done at the start of its compute, so an agent of the rank
// woken during the compute (here by a message, half-way through) finds it done, however long it takes on its thread.
TEST(MathThreads, AnAgentWokenDuringItsRanksComputeFindsTheMathDone) {
  for (int threads : {1, 3}) {
    SCOPED_TRACE(threads);
    const auto r = testing::run_simulated(
        testing::star(2),
        [](Comm& comm) -> nlohmann::json {
          const Tag tag = tags::make(Channel::Control, 0);
          if (comm.rank() == 1) {
            comm.sleep_for(0.5);
            comm.send(0, tag, {}, 8);
            return nullptr;
          }
          std::atomic<int> math_done{0};
          int seen = -1;
          auto agent = comm.spawn("reader", [&](Comm& c) {
            c.recv(1, tag);
            seen = math_done.load();
          });
          comm.compute(0, [&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            math_done.store(1);
          });
          agent->join();
          return seen;
        },
        testing::constant_compute(1.0, 2), threads);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.per_rank[0], 1);
    EXPECT_DOUBLE_EQ(r.end_time, 1.0);
  }
}

// Every algorithm with random stragglers, so that progress agents run while ranks compute: the math of each step
// (a 5,000-dimensional regression, long enough for a worker to be mid-task when an agent wakes) on one thread and
// on three must give the same bits.
TEST(MathThreads, EveryAlgorithmGivesTheSameBitsOnOneThreadAndOnThree) {
  nlohmann::json scenario = {
      {"name", "math-threads"},
      {"seed", 5},
      {"platform", {{"name", "piz_daint"}, {"nodes", 8}}},
      {"workload",
       {{"profile", "hyperplane"}, {"iterations", 12}, {"compute", {{"kind", "constant"}, {"seconds", 0.2}}}}},
      {"imbalance", {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.3}}},
      {"math",
       {{"model", "hyperplane"}, {"batch", 64}, {"dim", 5000}, {"train_size", 4096}, {"test_size", 256}, {"lr", 0.01}}},
      {"output", {{"progress", false}}}};
  for (const auto& info : algorithm_catalog()) {
    SCOPED_TRACE(info.name);
    scenario["algorithm"] = {{"name", info.name}};
    scenario["math"]["threads"] = 1;
    const auto one = simulate_scenario(scenario);
    ASSERT_TRUE(one.ok) << one.error;
    scenario["math"]["threads"] = 3;
    const auto three = simulate_scenario(scenario);
    ASSERT_TRUE(three.ok) << three.error;
    ASSERT_EQ(one.final_params.size(), three.final_params.size());
    for (std::size_t r = 0; r < one.final_params.size(); ++r)
      EXPECT_EQ(one.final_params[r], three.final_params[r]) << "rank " << r;
    EXPECT_EQ(one.summary["sim_time_s"], three.summary["sim_time_s"]);
    EXPECT_EQ(one.summary["final_loss"], three.summary["final_loss"]);
  }
}

}  // namespace quorum
