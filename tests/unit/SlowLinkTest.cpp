// The slow_link imbalance: which ranks' links are slow at which step (StragglerModel), and, in the simulator, that
// exactly the transfers crossing a slow rank's own links take longer, by (factor - 1) x bytes / bandwidth, on a
// star, on Maverick2 (a GPU's PCIe link, not its node's shared InfiniBand adapter), on Piz Daint under both routings,
// and when the slow rank is redrawn; and that a slow member holds a native allreduce back.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "sim/model/Fields.hpp"
#include "sim/model/ScenarioError.hpp"
#include "sim/model/SlowLinkCost.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::constant_compute;
using testing::run_simulated;

namespace {

StragglerModel parsed(const nlohmann::json& j, int ranks, std::uint64_t seed = 5) {
  Fields f(j, "imbalance");
  return StragglerModel(parse_imbalance(f, ranks, {{"node", 1}}, ""), ranks, seed);
}

StragglerSpec slow_ranks(std::vector<int> ranks, double factor) {
  StragglerSpec s;
  s.kind = "slow_link";
  s.rank_list = std::move(ranks);
  s.factor = factor;
  return s;
}

using Pair = std::pair<int, int>;

// Duration of each transfer of `bytes` from pair.first to pair.second, one pair per 1 s slot (nothing else moving),
// as the receiver sees it from the slot's start. Each rank first runs step `steps_before[slot]` of its computation
// (0 s long), so that a redrawn slow rank changes at the slot's start.
std::vector<double> transfer_times(const PlatformConfig& platform, const StragglerSpec& imbalance,
                                   const std::vector<Pair>& pairs, double bytes) {
  const int ranks = rank_count(platform);
  const auto result = run_simulated(
      platform,
      [&](Comm& comm) {
        nlohmann::json times = nlohmann::json::object();
        for (std::size_t k = 0; k < pairs.size(); ++k) {
          const double slot = static_cast<double>(k);
          comm.sleep_for(slot - comm.now());
          comm.compute(static_cast<std::int64_t>(k), nullptr);
          const auto [src, dst] = pairs[k];
          const Tag tag = tags::make(Channel::Benchmark, static_cast<int>(k));
          if (comm.rank() == src) comm.send(dst, tag, Payload{}, bytes);
          if (comm.rank() == dst) {
            comm.recv(src, tag);
            times[std::to_string(k)] = comm.now() - slot;
          }
        }
        return times;
      },
      constant_compute(0.0, ranks, imbalance));
  EXPECT_TRUE(result.ok) << result.error;
  std::vector<double> out;
  for (std::size_t k = 0; k < pairs.size(); ++k)
    out.push_back(result.per_rank.at(static_cast<std::size_t>(pairs[k].second))[std::to_string(k)].get<double>());
  return out;
}

}  // namespace

TEST(SlowLink, ChosenRanksAreSlowedInTheirLinksNotTheirComputation) {
  const auto listed = parsed({{"kind", "slow_link"}, {"ranks", {3}}, {"factor", 10}}, 16);
  EXPECT_TRUE(listed.slows_links());
  for (int step = 0; step < 20; ++step) {
    EXPECT_DOUBLE_EQ(listed.link_factor(3, step), 10.0);
    EXPECT_DOUBLE_EQ(listed.link_factor(4, step), 1.0);
    EXPECT_DOUBLE_EQ(listed.delay(3, step, 0.2), 0.0);  // its computation is untouched
  }
  // Redrawn, the slow ranks are the ones slow_worker would slow with the same seed: the two kinds differ only in
  // what they slow.
  const auto links = parsed({{"kind", "slow_link"}, {"ranks", 2}, {"factor", 3}, {"redraw_every", 7}}, 16);
  const auto workers = parsed({{"kind", "slow_worker"}, {"ranks", 2}, {"factor", 3}, {"redraw_every", 7}}, 16);
  std::set<int> seen;
  for (int step = 0; step < 300; ++step) {
    int slow = 0;
    for (int r = 0; r < 16; ++r) {
      const bool link_slow = links.link_factor(r, step) > 1;
      EXPECT_EQ(link_slow, workers.delay(r, step, 1.0) > 0) << "rank " << r << " step " << step;
      slow += link_slow ? 1 : 0;
      if (link_slow) seen.insert(r);
    }
    EXPECT_EQ(slow, 2);
  }
  EXPECT_GT(seen.size(), 6u);
  // Other kinds never slow links.
  EXPECT_DOUBLE_EQ(workers.link_factor(0, 0), 1.0);
  EXPECT_FALSE(workers.slows_links());
}

TEST(SlowLink, BadFieldsAreNamed) {
  auto expect_field = [](const nlohmann::json& j, const std::string& field) {
    try {
      parsed(j, 8);
      ADD_FAILURE() << "no error for " << j.dump();
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  };
  expect_field({{"kind", "slow_link"}, {"ranks", {8}}, {"factor", 2}}, "imbalance.ranks");
  expect_field({{"kind", "slow_link"}, {"ranks", 1}}, "imbalance.factor");
  expect_field({{"kind", "slow_link"}, {"factor", 0.5}}, "imbalance.factor");
  expect_field({{"kind", "slow_link"}, {"factor", 2}, {"redraw_every", -1}}, "imbalance.redraw_every");
  // A link's slowdown has one reading; the added-sleep reading of slow_worker does not apply.
  expect_field({{"kind", "slow_link"}, {"factor", 2}, {"factor_means", "added_sleep"}}, "imbalance.factor_means");
}

TEST(SlowLink, ExactlyTheTransfersThatCrossTheSlowRanksLinksTakeLonger) {
  const PlatformConfig platform = testing::star(4);  // 10 GB/s, 1 us per link
  const double bytes = 8e6, bandwidth = 10e9, factor = 4;
  const std::vector<Pair> pairs = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {2, 1}, {0, 2}};
  const auto base = transfer_times(platform, StragglerSpec{}, pairs, bytes);
  const auto slow = transfer_times(platform, slow_ranks({1}, factor), pairs, bytes);
  const double extra = slow_link_extra_s(factor, bytes, bandwidth);  // 3 x 0.8 ms
  ASSERT_NEAR(extra, 2.4e-3, 1e-15);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const bool crosses = pairs[k].first == 1 || pairs[k].second == 1;
    EXPECT_NEAR(slow[k], base[k] + (crosses ? extra : 0.0), 1e-9)
        << pairs[k].first << " -> " << pairs[k].second << " (base " << base[k] << ")";
  }
}

TEST(SlowLink, OnMaverick2TheGpusPcieIsSlowedNotItsNodesSharedAdapter) {
  Maverick2Config m;
  m.nodes = 2;  // ranks 0-3 on node 0, 4-7 on node 1
  const double bytes = 12e6, factor = 5;
  // 1 -> 0 and 2 -> 1: inside node 0, over PCIe; 1 -> 5: across; 0 -> 4 and 5 -> 6: rank 1's node and adapter, or
  // nothing of rank 1's, without its PCIe link.
  const std::vector<Pair> pairs = {{1, 0}, {2, 1}, {1, 5}, {0, 4}, {5, 6}};
  const auto base = transfer_times(m, StragglerSpec{}, pairs, bytes);
  const auto slow = transfer_times(m, slow_ranks({1}, factor), pairs, bytes);
  // A slowed PCIe link (12 GB/s / 5 = 2.4 GB/s) is now the route's bottleneck, also across nodes (FDR: 6.8 GB/s).
  const double slowed = bytes / (m.pcie_bandwidth_Bps / factor);
  for (std::size_t k : {0u, 1u})
    EXPECT_NEAR(slow[k] - base[k], slowed - bytes / m.pcie_bandwidth_Bps, 1e-9) << "pair " << k;
  EXPECT_NEAR(slow[2] - base[2], slowed - bytes / m.ib_bandwidth_Bps, 1e-9);
  EXPECT_NEAR(slow[3], base[3], 1e-12);
  EXPECT_NEAR(slow[4], base[4], 1e-12);
}

TEST(SlowLink, OnPizDaintANodesOwnLinkIsFoundUnderBothRoutings) {
  for (const char* routing : {"adaptive", "minimal"}) {
    PizDaintConfig p;
    p.nodes = 8;
    p.routing = routing;
    const double bytes = 10.5e6, factor = 2;
    const std::vector<Pair> pairs = {{1, 6}, {6, 1}, {0, 6}, {2, 3}};
    const auto base = transfer_times(p, StragglerSpec{}, pairs, bytes);
    const auto slow = transfer_times(p, slow_ranks({1}, factor), pairs, bytes);
    const double extra = slow_link_extra_s(factor, bytes, p.link_bandwidth_Bps);  // the node link was the bottleneck
    EXPECT_NEAR(slow[0] - base[0], extra, 1e-9) << routing;
    EXPECT_NEAR(slow[1] - base[1], extra, 1e-9) << routing;
    EXPECT_NEAR(slow[2], base[2], 1e-12) << routing;
    EXPECT_NEAR(slow[3], base[3], 1e-12) << routing;
  }
}

TEST(SlowLink, ARedrawnSlowRankChangesAtItsOwnStepBoundaries) {
  StragglerSpec spec;
  spec.kind = "slow_link";
  spec.ranks = 1;
  spec.factor = 3;
  spec.redraw_every = 1;
  const StragglerModel model(spec, 4, 1);
  const double bytes = 4e6, bandwidth = 10e9;
  // Each slot k is step k: the transfer 0 -> 1 is slow exactly when rank 0 or rank 1 is the slow rank of step k.
  const std::vector<Pair> pairs(12, Pair{0, 1});
  const auto base = transfer_times(testing::star(4), StragglerSpec{}, pairs, bytes);
  const auto slow = transfer_times(testing::star(4), spec, pairs, bytes);
  int slowed = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto step = static_cast<std::int64_t>(k);
    const double f = std::max(model.link_factor(0, step), model.link_factor(1, step));
    slowed += f > 1 ? 1 : 0;
    EXPECT_NEAR(slow[k], base[k] + slow_link_extra_s(f, bytes, bandwidth), 1e-9) << "step " << k;
  }
  EXPECT_GT(slowed, 0);  // the seed gives both kinds of step
  EXPECT_LT(slowed, 12);
}

TEST(SlowLink, ASlowMemberHoldsANativeAllreduceBack) {
  LocalhostConfig c;
  c.ranks = 4;
  c.latency_s = 10e-6;
  c.bandwidth_Bps = 4e9;
  c.native_allreduce = NativeAllreduceTable({{2, 1e6, 1e-3}, {4, 1e6, 2e-3}});
  const double factor = 3;
  const auto result = run_simulated(
      c,
      [](Comm& comm) {
        std::vector<float> data{1.0f};
        allreduce_sum(comm, Group::world(4), data, 1e6, AllreduceOptions{});
        if (data[0] != 4.0f) throw std::runtime_error("wrong sum");
        return nlohmann::json(comm.now());
      },
      constant_compute(0.0, 4, slow_ranks({2}, factor)));
  ASSERT_TRUE(result.ok) << result.error;
  // Rank 2 moves 2 x 3/4 of the vector through a link 3 x slower: the group ends that much after the table's time.
  const double extra = slow_link_allreduce_extra_s(factor, 4, 1e6, c.bandwidth_Bps);
  EXPECT_NEAR(extra, 2.0 * 1.5e6 / 4e9, 1e-15);
  for (const auto& t : result.per_rank) EXPECT_NEAR(t.get<double>(), 2e-3 + extra, 1e-12);
}

}  // namespace quorum
