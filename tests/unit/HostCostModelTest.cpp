// What the calibrated localhost platform charges beyond the network: the reduction rate at every block a collective
// sums, the shared memory bandwidth when every rank sends at once, and the measured native MPI_Allreduce. Exact
// simulated times of known exchanges against their closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::run_simulated;

namespace {

LocalhostConfig calibrated(int ranks, double reduce_Bps) {
  LocalhostConfig c;
  c.ranks = ranks;
  c.latency_s = 10e-6;
  c.bandwidth_Bps = 4e9;
  c.aggregate_bandwidth_Bps = 6e9;
  c.reduce_Bps = reduce_Bps;
  return c;
}

// Each rank's finishing time of one allreduce of `bytes` (real values: rank + 1, four of them).
std::vector<double> allreduce_times(const LocalhostConfig& c, AllreduceAlgorithm algorithm, Fidelity fidelity,
                                    double bytes) {
  const auto result = run_simulated(c, [&](Comm& comm) {
    std::vector<float> data(4, static_cast<float>(comm.rank() + 1));
    AllreduceOptions o;
    o.algorithm = algorithm;
    o.fidelity = fidelity;
    allreduce_sum(comm, Group::world(comm.size()), data, bytes, o);
    const float expected = static_cast<float>(comm.size() * (comm.size() + 1) / 2);
    if (data != std::vector<float>(4, expected)) throw std::runtime_error("wrong sum");
    return nlohmann::json(comm.now());
  });
  EXPECT_TRUE(result.ok) << result.error;
  std::vector<double> times;
  for (const auto& t : result.per_rank) times.push_back(t.get<double>());
  return times;
}

}  // namespace

TEST(HostCosts, RingChargesTheCalibratedReductionRateAndSharedBandwidth) {
  // Ring over 4 ranks, every message of the real algorithm: 6 steps of M/4, four transfers at once sharing the 6 GB/s
  // memory system (1.5 GB/s each, below the 4 GB/s link), and a reduction of M/4 after each of the first 3 steps.
  const double m = 8e6, r = 2e9;
  const double step = 10e-6 + (m / 4) / (6e9 / 4);
  for (double t : allreduce_times(calibrated(4, r), AllreduceAlgorithm::Ring, Fidelity::Chunk, m))
    EXPECT_NEAR(t, 6 * step + 3 * (m / 4) / r, 1e-9);
  for (double t : allreduce_times(calibrated(4, 0), AllreduceAlgorithm::Ring, Fidelity::Chunk, m))
    EXPECT_NEAR(t, 6 * step, 1e-9);
}

TEST(HostCosts, RecursiveDoublingChargesAWholeVectorPerExchange) {
  // log2(4) = 2 exchanges of M, four transfers at once, each followed by a reduction of M.
  const double m = 4e6, r = 5e9;
  for (double t : allreduce_times(calibrated(4, r), AllreduceAlgorithm::RecursiveDoubling, Fidelity::Chunk, m))
    EXPECT_NEAR(t, 2 * (10e-6 + m / 1.5e9 + m / r), 1e-9);
}

TEST(HostCosts, NativeAllreduceStartsAtTheLastArrivalAndTakesTheMeasuredTime) {
  LocalhostConfig c = calibrated(4, 2e9);
  c.native_allreduce = NativeAllreduceTable({{2, 1e6, 1e-3}, {4, 1e6, 2e-3}, {4, 4e6, 5e-3}});
  const auto result = run_simulated(c, [](Comm& comm) {
    // Rank r arrives at r ms; the whole world reduces 2 MB, then ranks 0 and 1 reduce 1 MB, ranks 0-2 reduce 1 MB.
    comm.sleep_for(1e-3 * comm.rank());
    std::vector<float> data{static_cast<float>(comm.rank() + 1)};
    allreduce_sum(comm, Group::world(4), data, 2e6, AllreduceOptions{});
    nlohmann::json out = {{"sum", data[0]}, {"world_done", comm.now()}, {"blocked", comm.blocked_seconds()}};
    if (comm.rank() < 2) {
      allreduce_sum(comm, Group{{0, 1}}, data, 1e6, AllreduceOptions{});
      out["pair_done"] = comm.now();
    }
    if (comm.rank() < 3) {
      allreduce_sum(comm, Group{{0, 1, 2}}, data, 1e6, AllreduceOptions{});
      out["three_done"] = comm.now();
    }
    return out;
  });
  ASSERT_TRUE(result.ok) << result.error;
  // 4 ranks, 2 MB: on the segment from (1 MB, 2 ms) to (4 MB, 5 ms): 3 ms, after the last arrival at 3 ms.
  const double world_done = 3e-3 + 3e-3;
  // 3 ranks sit between the measured 2 and 4 at log2(3): 1 ms + (2 ms - 1 ms)(log2(3) - 1).
  const double three = 1e-3 + 1e-3 * (std::log2(3.0) - 1);
  for (int r = 0; r < 4; ++r) {
    const auto& o = result.per_rank[static_cast<std::size_t>(r)];
    EXPECT_FLOAT_EQ(o["sum"].get<float>(), 10.0f);
    EXPECT_NEAR(o["world_done"].get<double>(), world_done, 1e-12);
    EXPECT_NEAR(o["blocked"].get<double>(), world_done - 1e-3 * r, 1e-12);  // the meeting counts as wait
    if (r < 2) {
      EXPECT_NEAR(o["pair_done"].get<double>(), world_done + 1e-3, 1e-12);
    }
    if (r < 3) {
      EXPECT_NEAR(o["three_done"].get<double>(), world_done + 1e-3 + three, 1e-12);
    }
  }
}

// Each rank's finishing time of each phase: at 10 ms x phase, the ranks listed for the phase start `work`.
std::vector<std::vector<double>> phase_times(const LocalhostConfig& c, const std::vector<std::vector<int>>& phases,
                                             const std::function<void(Comm&, std::size_t phase)>& work) {
  const auto result = run_simulated(c, [&](Comm& comm) {
    nlohmann::json done = nlohmann::json::array();
    for (std::size_t p = 0; p < phases.size(); ++p) {
      comm.sleep_for(10e-3 * static_cast<double>(p) - comm.now());
      const auto& who = phases[p];
      if (std::find(who.begin(), who.end(), comm.rank()) == who.end()) {
        done.push_back(nullptr);
        continue;
      }
      work(comm, p);
      done.push_back(comm.now() - 10e-3 * static_cast<double>(p));
    }
    return done;
  });
  EXPECT_TRUE(result.ok) << result.error;
  std::vector<std::vector<double>> times(phases.size());
  for (std::size_t p = 0; p < phases.size(); ++p)
    for (int r : phases[p]) times[p].push_back(result.per_rank.at(static_cast<std::size_t>(r))[p].get<double>());
  return times;
}

TEST(HostCosts, ReductionsShareTheCoresWhenRanksOutnumberThem) {
  // 4 ranks on 2 cores; reduce_Bps is the rate each rank got with all four summing, so a core sums 2 x that.
  LocalhostConfig c = calibrated(4, 2e9);
  c.cores = 2;
  const double b = 4e6, all = b / 2e9;  // 2 ms with all four at once
  const std::vector<std::vector<int>> phases = {{0, 1, 2, 3}, {0}, {0, 1}, {0, 1, 2}};
  auto reduce = [b](Comm& comm, std::size_t) { comm.charge_reduction(b, 1); };
  const auto shared = phase_times(c, phases, reduce);
  for (double t : shared[0]) EXPECT_NEAR(t, all, 1e-12);          // as calibrated
  for (double t : shared[1]) EXPECT_NEAR(t, all / 2, 1e-12);      // alone: a whole core
  for (double t : shared[2]) EXPECT_NEAR(t, all / 2, 1e-12);      // two ranks, two cores
  for (double t : shared[3]) EXPECT_NEAR(t, all * 3 / 4, 1e-12);  // three ranks share two cores
  // With a core per rank (as many cores as ranks, or none given) a reduction always takes the calibrated time.
  for (int cores : {0, 4}) {
    c.cores = cores;
    for (const auto& phase : phase_times(c, phases, reduce))
      for (double t : phase) EXPECT_NEAR(t, all, 1e-12);
  }
}

TEST(HostCosts, EachNodeSharesOnlyItsOwnCores) {
  // 2 nodes of 2 ranks with one core each: ranks of different nodes sum side by side, ranks of one node take turns.
  LocalhostConfig c = calibrated(4, 2e9);
  c.ranks_per_node = 2;
  c.inter_node_latency_s = 20e-6;
  c.adapter_bandwidth_Bps = 2e9;
  c.cores = 1;
  const double b = 4e6, all = b / 2e9;  // both ranks of a node at once: the calibrated rate
  auto reduce = [b](Comm& comm, std::size_t) { comm.charge_reduction(b, 1); };
  const auto times = phase_times(c, {{0, 2}, {0, 1}, {0, 1, 2, 3}}, reduce);
  for (double t : times[0]) EXPECT_NEAR(t, all / 2, 1e-12);  // one rank per node: a whole core each
  for (double t : times[1]) EXPECT_NEAR(t, all, 1e-12);      // node 0's two ranks share its core
  for (double t : times[2]) EXPECT_NEAR(t, all, 1e-12);
}

TEST(HostCosts, ConcurrentNativeGroupsShareTheCores) {
  // The table timed each group alone: 1 ms for 2 ranks, 2 ms for 4 (on 2 cores: the 4 ranks shared them already).
  LocalhostConfig c = calibrated(4, 0);
  c.native_allreduce = NativeAllreduceTable({{2, 1e6, 1e-3}, {4, 1e6, 2e-3}});
  c.cores = 2;
  const std::vector<std::vector<int>> phases = {{0, 1, 2, 3}, {0, 1}, {0, 1, 2, 3}};
  auto allreduce = [](Comm& comm, std::size_t phase) {
    std::vector<float> data{static_cast<float>(comm.rank())};
    const Group group = phase == 0 ? (comm.rank() < 2 ? Group{{0, 1}} : Group{{2, 3}})
                        : phase == 1 ? Group{{0, 1}}
                                     : Group::world(4);
    allreduce_sum(comm, group, data, 1e6, AllreduceOptions{});
  };
  const auto shared = phase_times(c, phases, allreduce);
  for (double t : shared[0]) EXPECT_NEAR(t, 2e-3, 1e-12);  // two groups of 2 on 2 cores: twice the time alone
  for (double t : shared[1]) EXPECT_NEAR(t, 1e-3, 1e-12);  // one group alone: the table
  for (double t : shared[2]) EXPECT_NEAR(t, 2e-3, 1e-12);  // the world alone: the table, not slowed again
  c.cores = 4;                                             // a core per rank: concurrent groups do not interfere
  const auto own = phase_times(c, phases, allreduce);
  for (double t : own[0]) EXPECT_NEAR(t, 1e-3, 1e-12);
  for (double t : own[2]) EXPECT_NEAR(t, 2e-3, 1e-12);
}

TEST(HostCosts, NativeTableInterpolatesAndNamesBadPoints) {
  const NativeAllreduceTable t({{2, 4096, 10e-6}, {2, 1 << 20, 200e-6}, {8, 4096, 40e-6}, {8, 1 << 20, 800e-6}});
  EXPECT_DOUBLE_EQ(t.seconds(2, 4096), 10e-6);
  EXPECT_DOUBLE_EQ(t.seconds(2, 100), 10e-6);  // below the smallest size: latency-bound
  const double slope = (200e-6 - 10e-6) / ((1 << 20) - 4096);
  EXPECT_NEAR(t.seconds(2, 2 << 20), 200e-6 + slope * (1 << 20), 1e-15);  // beyond: the last segment's slope
  EXPECT_NEAR(t.seconds(4, 4096), 10e-6 + 30e-6 / 2, 1e-15);              // halfway in log2(ranks)
  EXPECT_NEAR(t.seconds(16, 4096), 40e-6 + 30e-6 / 2, 1e-15);             // one step of log2 beyond 8
  EXPECT_THROW(NativeAllreduceTable({{1, 4096, 1e-6}}), std::invalid_argument);
  EXPECT_THROW(NativeAllreduceTable({{2, 4096, 0}}), std::invalid_argument);
  EXPECT_THROW(NativeAllreduceTable({{2, 4096, 1e-6}, {2, 4096, 2e-6}}), std::invalid_argument);
}

}  // namespace quorum
