// Platform builders: sizes, placement of ranks, and the link figures they are documented to have.
#include <gtest/gtest.h>

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
