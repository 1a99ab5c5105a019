// Control messages that skip the max-min system (sim/simgrid/ControlCouriers.hpp): on an idle network they arrive
// exactly when a shared flow would; under load they are not slowed by the flows they cross and do not slow them
// (by more than their few bytes); a sender's messages to one mailbox keep their order; larger or data-carrying
// messages still go through SimGrid's network.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "tests/support/ScenarioHarness.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::constant_compute;
using testing::run_simulated;

namespace {

constexpr double kControlBytes = 16;
constexpr double kBandwidth = 10e9;

// A switch with a loopback per node (which the couriers need; a generic "cluster" has none, so its messages all stay
// ordinary flows), 10 GB/s links.
PlatformConfig switch_of(int nodes) { return testing::one_switch(nodes); }
constexpr double kLargeBytes = 100e6;

// Rank 0 sends, at t = 0.5 s, a control message to rank 1 (and, when `load`, first starts a large transfer to it
// on another tag). Returns {control arrival - 0.5, large arrival - 0.5 (0 without load)} as rank 1 sees them. The
// couriers serve data_messages "simgrid"; `direct_data` runs the same under "direct", where DirectMessages delivers
// such messages unshared and quorum's flow model times the large transfer.
std::vector<double> arrivals(bool unshared, bool load, double control_bytes = kControlBytes,
                             Payload control = Payload{{}, {7}}, const PlatformConfig& platform = switch_of(2),
                             bool direct_data = false) {
  const auto r = run_simulated(
      platform,
      [&](Comm& comm) -> nlohmann::json {
        comm.sleep_for(0.5);
        const Tag control_tag = tags::make(Channel::Benchmark, 1);
        const Tag large_tag = tags::make(Channel::Benchmark, 2);
        if (comm.rank() == 0) {
          RequestPtr large;
          if (load) large = comm.isend(1, large_tag, Payload{}, kLargeBytes);
          comm.post(1, control_tag, control, control_bytes);
          if (large) comm.wait(large);
          return nullptr;
        }
        RequestPtr large;
        if (load) large = comm.irecv(0, large_tag);
        const Message m = comm.recv(0, control_tag);
        EXPECT_EQ(m.payload.ints, control.ints);
        const double control_at = comm.now() - 0.5;
        double large_at = 0;
        if (large) {
          comm.wait(large);
          large_at = comm.now() - 0.5;
        }
        return nlohmann::json::array({control_at, large_at});
      },
      constant_compute(0.0, 2), 1, MessagePaths{unshared, direct_data});
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return {0, 0};
  return r.per_rank[1].get<std::vector<double>>();
}

}  // namespace

TEST(ControlCouriers, OnAnIdleNetworkAControlMessageArrivesWhenASharedFlowWould) {
  const auto unshared = arrivals(true, false);
  const auto shared = arrivals(false, false);
  EXPECT_NEAR(shared[0], 2e-6 + kControlBytes / kBandwidth, 1e-12);  // two links' latency, then the bytes
  EXPECT_NEAR(unshared[0], shared[0], 1e-12);
}

TEST(ControlCouriers, UnderLoadItIsNotSlowedAndSlowsNothingMeasurably) {
  // Under data_messages "direct" too, on every platform (with or without loopbacks).
  for (const PlatformConfig& platform : {switch_of(2), testing::star(2)}) {
    const auto idle = arrivals(true, false, kControlBytes, Payload{{}, {7}}, platform, true);
    const auto unshared = arrivals(true, true, kControlBytes, Payload{{}, {7}}, platform, true);
    EXPECT_NEAR(unshared[0], idle[0], 1e-12);
    EXPECT_GT(unshared[1], kLargeBytes / kBandwidth);
  }
  const auto idle = arrivals(true, false);
  const auto unshared = arrivals(true, true);
  const auto shared = arrivals(false, true);
  // Unshared: the idle-network time, although a 100 MB flow crosses the same links.
  EXPECT_NEAR(unshared[0], idle[0], 1e-12);
  // Shared: it gets half of a link for its 16 bytes, so it arrives 16 B / 10 GB/s later than on an idle network.
  EXPECT_NEAR(shared[0] - idle[0], kControlBytes / kBandwidth, 1e-12);
  // The large flow loses at most the control message's bytes of bandwidth when it is shared, nothing when not.
  EXPECT_NEAR(unshared[1], shared[1], 2 * kControlBytes / kBandwidth);
  EXPECT_GT(unshared[1], kLargeBytes / kBandwidth);
}

TEST(ControlCouriers, MessagesWithDataOrMoreBytesStillShareTheLinks) {
  // 4 KiB, or a float: an ordinary flow, so under load it is slowed exactly as with control_messages "shared".
  const auto big_unshared = arrivals(true, true, 4096);
  const auto big_shared = arrivals(false, true, 4096);
  EXPECT_NEAR(big_unshared[0], big_shared[0], 1e-12);
  const Payload data{{1.0F}, {7}};
  const auto data_unshared = arrivals(true, true, kControlBytes, data);
  const auto data_shared = arrivals(false, true, kControlBytes, data);
  EXPECT_NEAR(data_unshared[0], data_shared[0], 1e-12);
  EXPECT_GT(data_unshared[0], arrivals(true, false)[0]);
}

TEST(ControlCouriers, AHostWithoutALoopbackGetsOrdinaryFlows) {
  // testing::star has no loopbacks: under load the message is slowed as a shared flow is.
  const Payload control{{}, {7}};
  EXPECT_NEAR(arrivals(true, true, kControlBytes, control, testing::star(2))[0],
              arrivals(false, true, kControlBytes, control, testing::star(2))[0], 1e-15);
}

TEST(ControlCouriers, ASendersMessagesToOneMailboxKeepTheirOrder) {
  constexpr int kSenders = 3;
  constexpr int kMessages = 40;
  const auto r = run_simulated(switch_of(kSenders + 1), [&](Comm& comm) -> nlohmann::json {
    const Tag tag = tags::make(Channel::Benchmark, 3);
    if (comm.rank() < kSenders) {
      for (int k = 0; k < kMessages; ++k) {
        comm.post(kSenders, tag, Payload{{}, {comm.rank(), k}}, kControlBytes);
        if (k % 7 == comm.rank()) comm.sleep_for(1e-7);  // interleave the senders differently
      }
      return nullptr;
    }
    std::vector<int> next(kSenders, 0);
    bool in_order = true;
    for (int i = 0; i < kSenders * kMessages; ++i) {
      const Message m = comm.recv(i % kSenders, tag);
      in_order = in_order && m.payload.ints[1] == next[static_cast<std::size_t>(m.payload.ints[0])]++;
    }
    return in_order;
  });
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.per_rank[kSenders].get<bool>());
}

using testing::mean_figures;
using testing::piz_daint_scenario;

// The algorithms whose protocols send control messages, on Piz Daint under adaptive routing (where every flow
// shares the pooled links), with ResNet-50 messages and two delayed ranks: throughput and mean wait with unshared
// control messages against the reference, every message a shared flow.
TEST(ControlCouriers, ScenarioFiguresStayWithinToleranceOfSharedControlMessages) {
  for (const nlohmann::json& algorithm : {nlohmann::json{{"name", "wagma"}},
                                          nlohmann::json{{"name", "eager_sgd"}, {"collective", "solo"}},
                                          nlohmann::json{{"name", "eager_sgd"}, {"collective", "majority"}},
                                          nlohmann::json{{"name", "adpsgd"}}}) {
    SCOPED_TRACE(algorithm.dump());
    auto s = piz_daint_scenario(algorithm, 12, 42);
    const auto [throughput, wait] = mean_figures(s, 1);
    s["control_messages"] = "shared";
    const auto [throughput_ref, wait_ref] = mean_figures(s, 1);
    EXPECT_NEAR(throughput, throughput_ref, 0.001 * throughput_ref);
    EXPECT_NEAR(wait, wait_ref, 0.001 * wait_ref);
  }
}

// Prague's groups form in the order requests reach the generator, which a nanosecond changes, and one different
// group changes every later step: single runs of the two models differ as two seeds do (64 nodes, 40 steps: 1.27
// against 1.13 steps/s on one seed). So the check is on the mean over 24 seeds: some seeds settle into a slower
// pattern of groups (1.02 steps/s, mean wait 0.29 s), and one such run moves a six-seed mean wait by 17%.
TEST(ControlCouriers, PragueFiguresStayWithinToleranceOverSeeds) {
  constexpr int kSeeds = 24;
  auto s = piz_daint_scenario({{"name", "prague"}, {"mode", "smart"}}, 40, 1);
  const auto [throughput, wait] = mean_figures(s, kSeeds);
  s["control_messages"] = "shared";
  const auto [throughput_ref, wait_ref] = mean_figures(s, kSeeds);
  EXPECT_NEAR(throughput, throughput_ref, 0.03 * throughput_ref);
  EXPECT_NEAR(wait, wait_ref, 0.10 * wait_ref);
}

}  // namespace quorum
