// Platform builders: sizes, placement of ranks, and the link figures they are documented to have.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::run_simulated;

namespace {
// Time for `bytes` from rank `from` to rank `to` (all other ranks idle).
double transfer_time(const PlatformConfig& platform, int from, int to, double bytes) {
  const auto result = run_simulated(platform, [&](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark);
    if (comm.rank() == from) comm.send(to, t, Payload{}, bytes);
    if (comm.rank() == to) comm.recv(from, t);
    return nlohmann::json(comm.now());
  });
  EXPECT_TRUE(result.ok) << result.error;
  return result.ok ? result.per_rank[static_cast<std::size_t>(to)].get<double>() : -1;
}
}  // namespace

TEST(Platforms, PizDaintBuildsAnySizeUpTo4096Nodes) {
  for (int nodes : {1, 5, 64, 385, 4096}) {
    PizDaintConfig c;
    c.nodes = nodes;
    const auto result = run_simulated(c, [](Comm& comm) { return nlohmann::json(comm.size()); });
    ASSERT_TRUE(result.ok) << nodes << ": " << result.error;
    EXPECT_EQ(static_cast<int>(result.per_rank.size()), nodes);
  }
}

TEST(Platforms, PizDaintLatencyGrowsWithDragonflyDistance) {
  PizDaintConfig c;
  c.nodes = 400;  // two groups
  const double same_router = transfer_time(c, 0, 1, 8);
  const double same_chassis = transfer_time(c, 0, 60, 8);
  const double other_chassis = transfer_time(c, 0, 100, 8);
  const double other_group = transfer_time(c, 0, 390, 8);
  EXPECT_LT(same_router, same_chassis);
  EXPECT_LE(same_chassis, other_chassis);
  EXPECT_LT(other_chassis, other_group);
  // Published end-to-end latencies: 0.65 to 2.2 us.
  EXPECT_GE(same_router, 0.5e-6);
  EXPECT_LE(other_group, 2.5e-6);
  // Bulk bandwidth: an electrical link.
  EXPECT_NEAR(transfer_time(c, 0, 60, 100e6), 100e6 / 5.25e9, 1e-4);
}

TEST(Platforms, PizDaintLatencyGrowsWithDragonflyDistanceUnderMinimalRoutingToo) {
  PizDaintConfig c;
  c.nodes = 400;
  c.routing = "minimal";
  EXPECT_LT(transfer_time(c, 0, 1, 8), transfer_time(c, 0, 60, 8));
  EXPECT_LE(transfer_time(c, 0, 60, 8), transfer_time(c, 0, 100, 8));
  EXPECT_LT(transfer_time(c, 0, 100, 8), transfer_time(c, 0, 390, 8));
  EXPECT_LE(transfer_time(c, 0, 390, 8), 2.5e-6);
}

namespace {
// Rank 0 sends 8 bytes then `bytes` to each target in turn, alone on the network; returns {latency, bandwidth} per
// target (the 8-byte time, and the rate of the bytes beyond it).
std::vector<std::pair<double, double>> lone_flows(const PlatformConfig& platform, const std::vector<int>& targets,
                                                  double bytes) {
  const auto result = run_simulated(platform, [&](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark);
    nlohmann::json out = nlohmann::json::array();
    for (int to : targets) {
      if (comm.rank() == to) {
        comm.recv(0, t);
        comm.recv(0, t);
      } else if (comm.rank() == 0) {
        const double start = comm.now();
        comm.send(to, t, Payload{}, 8);
        const double small = comm.now() - start;
        comm.send(to, t, Payload{}, bytes);
        out.push_back({small, (bytes - 8) / (comm.now() - start - 2 * small)});
      }
    }
    return out;
  });
  EXPECT_TRUE(result.ok) << result.error;
  std::vector<std::pair<double, double>> flows;
  if (result.ok)
    for (const auto& f : result.per_rank[0]) flows.emplace_back(f[0].get<double>(), f[1].get<double>());
  return flows;
}
}  // namespace

// A single flow is bound by its nodes' links either way: adaptive routing never gives it less bandwidth, at any
// distance. (Latency is another matter: adaptive charges each level its longest minimal path, up to 2 hops more.)
TEST(Platforms, AdaptiveRoutingNeverGivesASingleFlowLessBandwidthThanMinimal) {
  PizDaintConfig adaptive, minimal;
  adaptive.nodes = minimal.nodes = 800;  // three groups
  minimal.routing = "minimal";
  const std::vector<int> targets = {1, 60, 100, 390, 799};
  const auto a = lone_flows(adaptive, targets, 100e6);
  const auto m = lone_flows(minimal, targets, 100e6);
  ASSERT_EQ(a.size(), targets.size());
  ASSERT_EQ(m.size(), targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    SCOPED_TRACE(targets[i]);
    EXPECT_GE(a[i].second, m[i].second * (1 - 1e-9));
    EXPECT_NEAR(a[i].second, 5.25e9, 5.25e9 * 1e-6);
    EXPECT_LE(a[i].first, m[i].first + 2 * adaptive.link_latency_s + 1e-12);
  }
}

namespace {
// Every rank r < pairs sends `bytes` to rank r + pairs at once; returns the last arrival.
double paired_exchange_time(const PlatformConfig& platform, int pairs, double bytes) {
  const auto result = run_simulated(platform, [&](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark);
    if (comm.rank() < pairs) comm.send(comm.rank() + pairs, t, Payload{}, bytes);
    else if (comm.rank() < 2 * pairs) comm.recv(comm.rank() - pairs, t);
    return nlohmann::json(comm.now());
  });
  EXPECT_TRUE(result.ok) << result.error;
  double last = 0;
  for (const auto& t : result.per_rank) last = std::max(last, t.get<double>());
  return last;
}
}  // namespace

// The butterfly phase the scenario READMEs describe: the 4 nodes of router 0 exchange with the 4 of router 1. Minimal
// routing puts the 4 flows on the one green link between the routers; adaptive routing spreads them over the other
// routers of the chassis, so each runs at its node's link rate.
TEST(Platforms, AdaptiveRoutingSpreadsAButterflyPhaseAcrossRouters) {
  PizDaintConfig adaptive, minimal;
  adaptive.nodes = minimal.nodes = 64;
  minimal.routing = "minimal";
  const double a = paired_exchange_time(adaptive, 4, 100e6);
  const double m = paired_exchange_time(minimal, 4, 100e6);
  EXPECT_NEAR(m, 4 * 100e6 / 5.25e9, 1e-4);
  EXPECT_NEAR(a, 100e6 / 5.25e9, 1e-4);
  EXPECT_GE(m / a, 2.0);
}

// Where the pair's link binds, it holds the UGAL/Valiant bound of a permutation: the direct link plus half of each
// of the other routers' links, c * n / 2 with n routers (here 4 routers: 2 links' worth, twice minimal's one).
TEST(Platforms, AdaptiveRoutingHoldsARouterPairToTheValiantBound) {
  GenericConfig c;
  c.topology = "dragonfly";
  c.routers = 4;
  c.nodes_per_router = 8;
  c.nodes = 32;
  c.bandwidth_Bps = 1e9;
  c.latency_s = 0;
  GenericConfig minimal = c;
  c.routing = "adaptive";
  EXPECT_NEAR(paired_exchange_time(c, 8, 1e8), 8 * 1e8 / 2e9, 1e-6);
  EXPECT_NEAR(paired_exchange_time(minimal, 8, 1e8), 8 * 1e8 / 1e9, 1e-6);
  // Two router pairs at once (0->2 and 1->3): still a permutation, still the same bound.
  EXPECT_NEAR(paired_exchange_time(c, 16, 1e8), 8 * 1e8 / 2e9, 1e-6);
}

TEST(Platforms, Maverick2GpusShareTheirNodesInfiniBandLink) {
  Maverick2Config c;
  c.nodes = 2;
  EXPECT_EQ(rank_count(c), 8);
  const double intra = transfer_time(c, 0, 1, 100e6);
  const double inter = transfer_time(c, 0, 4, 100e6);
  EXPECT_NEAR(intra, 100e6 / c.pcie_bandwidth_Bps, 1e-4);  // PCIe bound
  EXPECT_NEAR(inter, 100e6 / c.ib_bandwidth_Bps, 1e-4);    // IB bound
  // All four GPUs of node 0 send to node 1 at once: they share one IB link.
  const auto result = run_simulated(c, [](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark);
    if (comm.rank() < 4) comm.send(comm.rank() + 4, t, Payload{}, 100e6);
    else comm.recv(comm.rank() - 4, t);
    return nlohmann::json(comm.now());
  });
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_NEAR(result.per_rank[4].get<double>(), 4 * 100e6 / c.ib_bandwidth_Bps, 1e-3);
}

TEST(Platforms, LocalhostReproducesItsCalibration) {
  LocalhostConfig c;
  c.ranks = 3;
  c.latency_s = 20e-6;
  c.bandwidth_Bps = 2e9;
  EXPECT_NEAR(transfer_time(c, 0, 2, 8), 20e-6 + 8 / 2e9, 1e-9);
  EXPECT_NEAR(transfer_time(c, 2, 1, 1e6), 20e-6 + 1e6 / 2e9, 1e-9);
}

TEST(Platforms, LocalhostSharesItsAggregateBandwidthBetweenConcurrentTransfers) {
  LocalhostConfig c;
  c.ranks = 4;
  c.latency_s = 0;
  c.bandwidth_Bps = 4e9;
  c.aggregate_bandwidth_Bps = 6e9;
  // Alone, a transfer gets its own link's rate; four at once (a ring exchange) share 6 GB/s.
  EXPECT_NEAR(transfer_time(c, 0, 1, 1e8), 1e8 / 4e9, 1e-6);
  const auto ring = testing::run_simulated(c, [](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark);
    auto in = comm.irecv((comm.rank() + 3) % 4, t);
    comm.send((comm.rank() + 1) % 4, t, Payload{}, 1e8);
    comm.wait(in);
    return nlohmann::json(comm.now());
  });
  ASSERT_TRUE(ring.ok) << ring.error;
  for (const auto& t : ring.per_rank) EXPECT_NEAR(t.get<double>(), 4 * 1e8 / 6e9, 1e-4);
}

// rank_levels' routers (imbalance.correlate) are the builders': the last rank of a router's block is one router
// hop closer to its first rank than the next block's first rank is.
TEST(Platforms, LocalhostOfSeveralNodesJoinsThemThroughSharedAdapters) {
  // 2 nodes of 2 ranks: 10 us and 4 GB/s within a node, 30 us between nodes through 2 GB/s adapters.
  LocalhostConfig c;
  c.ranks = 4;
  c.ranks_per_node = 2;
  c.latency_s = 10e-6;
  c.bandwidth_Bps = 4e9;
  c.inter_node_latency_s = 30e-6;
  c.adapter_bandwidth_Bps = 2e9;
  EXPECT_EQ(ranks_per_node(PlatformConfig{c}), 2);
  EXPECT_NEAR(transfer_time(c, 0, 1, 8e6), 10e-6 + 8e6 / 4e9, 1e-9);  // within node 0
  EXPECT_NEAR(transfer_time(c, 3, 2, 8e6), 10e-6 + 8e6 / 4e9, 1e-9);  // within node 1
  EXPECT_NEAR(transfer_time(c, 1, 2, 8e6), 30e-6 + 8e6 / 2e9, 1e-9);  // between nodes: the adapter's rate
  // Both ranks of node 0 send to node 1 at once: they share its adapter (and node 1's), 1 GB/s each.
  const auto both = testing::run_simulated(c, [](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark);
    if (comm.rank() < 2) comm.send(comm.rank() + 2, t, Payload{}, 8e6);
    else comm.recv(comm.rank() - 2, t);
    return nlohmann::json(comm.now());
  });
  ASSERT_TRUE(both.ok) << both.error;
  for (int r = 2; r < 4; ++r) EXPECT_NEAR(both.per_rank[static_cast<std::size_t>(r)].get<double>(), 30e-6 + 8e6 / 1e9, 1e-9);
  // One node (ranks_per_node at least the ranks) is the single star.
  c.ranks_per_node = 4;
  EXPECT_EQ(ranks_per_node(PlatformConfig{c}), 1);
  EXPECT_NEAR(transfer_time(c, 1, 2, 8e6), 10e-6 + 8e6 / 4e9, 1e-9);
}

TEST(Platforms, RankLevelRoutersAreTheDragonflysRouters) {
  PizDaintConfig daint;
  daint.nodes = 16;
  GenericConfig generic;
  generic.topology = "dragonfly";
  generic.nodes = 24;
  generic.groups = 2;
  generic.chassis = 2;
  generic.routers = 2;
  generic.nodes_per_router = 3;
  for (const PlatformConfig& c : {PlatformConfig(daint), PlatformConfig(generic)}) {
    const auto levels = rank_levels(c);
    ASSERT_EQ(levels.size(), 4u);
    ASSERT_EQ(levels[1].name, "router");
    const int n = levels[1].ranks;
    for (int block = 0; block + n < rank_count(c); block += n) {
      EXPECT_LT(transfer_time(c, block, block + n - 1, 8), transfer_time(c, block, block + n, 8)) << block;
    }
  }
}

TEST(Platforms, GenericTopologiesBuildAndConnectAllRanks) {
  std::vector<GenericConfig> configs(4);
  configs[0].topology = "cluster";
  configs[0].nodes = 6;
  configs[1].topology = "fat_tree";
  configs[1].nodes = 16;
  configs[2].topology = "dragonfly";
  configs[2].nodes = 30;
  configs[2].groups = 2;
  configs[2].chassis = 2;
  configs[2].routers = 2;
  configs[2].nodes_per_router = 4;
  configs.push_back(configs[2]);
  configs.back().routing = "adaptive";
  configs[3].topology = "torus";
  configs[3].nodes = 9;
  configs[3].torus_dimensions = {3, 3};
  for (const auto& c : configs) {
    SCOPED_TRACE(c.topology);
    const double t = transfer_time(c, 0, c.nodes - 1, 1e6);
    EXPECT_GT(t, 1e6 / c.bandwidth_Bps);
    EXPECT_LT(t, 1e6 / c.bandwidth_Bps + 20e-6);
  }
}

}  // namespace quorum
