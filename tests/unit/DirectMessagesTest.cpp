// The control channels' messages matched and delivered by quorum (sim/simgrid/DirectMessages.hpp): they start no
// SimGrid communication; on an idle network they arrive exactly when a shared flow would, also when the receive is
// posted late (the rendezvous) and between a rank and its own agent; under load they are not slowed; matching keeps
// MPI's order per (source, destination, tag); sends end at the arrival; wait_any over direct and SimGrid requests
// takes the first to end; a cancelled receive takes nothing.
#include <gtest/gtest.h>

#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::constant_compute;
using testing::run_simulated;

namespace {

constexpr double kControlBytes = 16;
constexpr double kBandwidth = 10e9;
constexpr double kLatency = 1e-6;
constexpr double kLargeBytes = 100e6;
const Tag kControlTag = tags::make(Channel::Activation, 3);
const Tag kDataTag = tags::make(Channel::Benchmark, 2);

PlatformConfig switch_of(int nodes) { return testing::one_switch(nodes); }  // kBandwidth, kLatency

ComputeModel no_compute(int ranks) { return constant_compute(0.0, ranks); }

// Rank 0 posts a control message to rank 1 at 0.5 s, rank 1 posts its receive at `receive_at` (and, when `load`,
// a 100 MB transfer from 0 to 1 runs meanwhile). Returns {arrival, large transfer's arrival or 0} as rank 1 sees
// them.
std::vector<double> arrivals(bool unshared, bool load, double receive_at = 0.5,
                             const PlatformConfig& platform = switch_of(2)) {
  const auto r = run_simulated(
      platform,
      [&](Comm& comm) -> nlohmann::json {
        if (comm.rank() == 0) {
          comm.sleep_for(0.5);
          RequestPtr large;
          if (load) large = comm.isend(1, kDataTag, Payload{}, kLargeBytes);
          comm.post(1, kControlTag, Payload{{}, {7, 8}}, kControlBytes);
          if (large) comm.wait(large);
          return nullptr;
        }
        RequestPtr large;
        comm.sleep_for(0.5);
        if (load) large = comm.irecv(0, kDataTag);
        comm.sleep_for(receive_at - 0.5);
        const Message m = comm.recv(0, kControlTag);
        EXPECT_EQ(m.payload.ints, (std::vector<std::int64_t>{7, 8}));
        EXPECT_EQ(m.source, 0);
        const double control_at = comm.now();
        double large_at = 0;
        if (large) {
          comm.wait(large);
          large_at = comm.now();
        }
        return nlohmann::json::array({control_at, large_at});
      },
      no_compute(2), 1, MessagePaths{unshared});
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return {0, 0};
  return r.per_rank[1].get<std::vector<double>>();
}

}  // namespace

TEST(DirectMessages, OnAnIdleNetworkAMessageArrivesWhenASharedFlowWould) {
  const auto direct = arrivals(true, false);
  const auto shared = arrivals(false, false);
  EXPECT_NEAR(shared[0], 0.5 + 2 * kLatency + kControlBytes / kBandwidth, 1e-12);
  EXPECT_NEAR(direct[0], shared[0], 1e-12);
  // A platform without loopbacks (the couriers could not serve it) times it the same way.
  EXPECT_NEAR(arrivals(true, false, 0.5, testing::star(2))[0], arrivals(false, false, 0.5, testing::star(2))[0],
              1e-12);
}

TEST(DirectMessages, ATransferStartsWhenTheReceiveIsPosted) {
  // Posted at 0.5, received from 0.7: SimGrid's rendezvous starts the transfer at 0.7.
  const auto direct = arrivals(true, false, 0.7);
  const auto shared = arrivals(false, false, 0.7);
  EXPECT_NEAR(shared[0], 0.7 + 2 * kLatency + kControlBytes / kBandwidth, 1e-12);
  EXPECT_NEAR(direct[0], shared[0], 1e-12);
}

TEST(DirectMessages, UnderLoadItIsNotSlowedAndSlowsNothing) {
  const auto idle = arrivals(true, false);
  const auto direct = arrivals(true, true);
  const auto shared = arrivals(false, true);
  EXPECT_NEAR(direct[0], idle[0], 1e-12);
  EXPECT_NEAR(shared[0] - idle[0], kControlBytes / kBandwidth, 1e-12);  // a shared flow gets half a link
  EXPECT_NEAR(direct[1], shared[1], 2 * kControlBytes / kBandwidth);
  EXPECT_GT(direct[1], 0.5 + kLargeBytes / kBandwidth);
}

TEST(DirectMessages, ARankAndItsOwnAgentExchangeOverTheLoopbackInTheSameTime) {
  const auto self_exchange = [](bool unshared) {
    const auto r = run_simulated(
        switch_of(1),
        [](Comm& comm) -> nlohmann::json {
          double agent_got = -1;
          auto agent = comm.spawn("agent", [&agent_got](Comm& a) {
            a.recv(a.rank(), tags::make(Channel::Control, 1));
            agent_got = a.now();
          });
          comm.sleep_for(0.25);
          comm.post(comm.rank(), tags::make(Channel::Control, 1), Payload{{}, {1}}, kControlBytes);
          agent->join();
          return agent_got;
        },
        no_compute(1), 1, MessagePaths{unshared});
    EXPECT_TRUE(r.ok) << r.error;
    return r.ok ? r.per_rank[0].get<double>() : 0.0;
  };
  const double direct = self_exchange(true);
  EXPECT_GE(direct, 0.25);
  EXPECT_NEAR(direct, self_exchange(false), 1e-12);
}

TEST(DirectMessages, StartsNoSimGridCommunication) {
  // Counts the network model's actions changing state (SimGrid's signal is process-wide; each run is a child
  // process of its own).
  const auto network_events = [](bool unshared) {
    const auto r = run_simulated(
        switch_of(2),
        [](Comm& comm) -> nlohmann::json {
          static int started = 0;
          if (comm.rank() == 1)
            simgrid::s4u::Link::on_communication_state_change_cb(
                [](simgrid::kernel::resource::NetworkAction&, simgrid::kernel::resource::Action::State) { ++started; });
          comm.sleep_for(0.1);
          for (int k = 0; k < 10; ++k) {
            if (comm.rank() == 0) comm.post(1, kControlTag, Payload{{}, {k}}, kControlBytes);
            if (comm.rank() == 1) comm.recv(0, kControlTag);
          }
          return started;
        },
        no_compute(2), 1, MessagePaths{unshared});
    EXPECT_TRUE(r.ok) << r.error;
    return r.ok ? r.per_rank[1].get<int>() : -1;
  };
  EXPECT_EQ(network_events(true), 0);
  EXPECT_GE(network_events(false), 10);
}

TEST(DirectMessages, MatchingKeepsEachTriplesOrderAndAnySourceArrivalOrder) {
  constexpr int kSenders = 3;
  constexpr int kMessages = 30;
  const Tag any_source = tags::make_any_source(Channel::GroupGenerator, 0);
  const auto r = run_simulated(switch_of(kSenders + 1), [&](Comm& comm) -> nlohmann::json {
    if (comm.rank() < kSenders) {
      for (int k = 0; k < kMessages; ++k) {
        comm.post(kSenders, kControlTag, Payload{{}, {comm.rank(), k}}, kControlBytes);
        comm.post(kSenders, any_source, Payload{{}, {comm.rank(), k}}, kControlBytes);
        if (k % 7 == comm.rank()) comm.sleep_for(1e-7);  // interleave the senders differently
      }
      return nullptr;
    }
    // Named sources, read in an order of our own: each sender's messages in the order sent.
    std::vector<int> next(kSenders, 0);
    bool in_order = true;
    for (int i = 0; i < kSenders * kMessages; ++i) {
      const int from = (i * 2) % kSenders;
      const Message m = comm.recv(from, kControlTag);
      in_order = in_order && m.source == from && m.payload.ints[1] == next[static_cast<std::size_t>(from)]++;
    }
    // Any source: every message once, each sender's in order.
    std::vector<int> next_any(kSenders, 0);
    for (int i = 0; i < kSenders * kMessages; ++i) {
      const Message m = comm.recv(kAnySource, any_source);
      in_order = in_order && m.payload.ints[1] == next_any[static_cast<std::size_t>(m.payload.ints[0])]++;
    }
    return in_order;
  });
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.per_rank[kSenders].get<bool>());
}

// Mailboxes come and go (a box is released when its key drains and handed to the next new key) and shared messages
// end in another order than they started (a slot is freed and reused while others are in flight): every message
// still reaches the receive of its own (source, destination, tag), with its own payload.
TEST(DirectMessages, ReusedMailboxesAndFlightSlotsDeliverEveryMessageToItsOwnReceive) {
  constexpr int kReceivers = 3;
  constexpr int kRounds = 8;
  constexpr int kTags = 5;
  const auto r = run_simulated(switch_of(kReceivers + 1), [&](Comm& comm) -> nlohmann::json {
    if (comm.rank() == 0) {
      std::vector<RequestPtr> data;
      for (int k = 0; k < kRounds; ++k) {
        for (int d = 1; d <= kReceivers; ++d) {
          comm.post(d, tags::make(Channel::Activation, k % kTags), Payload{{}, {d, k}}, kControlBytes);
          // Larger first: the later, smaller ones end first.
          const double bytes = 1e-4 * kBandwidth * (kRounds - k) * d;
          data.push_back(comm.isend(d, kDataTag, Payload{{}, {d, k}}, bytes));
        }
        comm.sleep_for(k % 2 == 0 ? 1e-7 : 1e-3);  // some rounds arrive before their receives, some after
      }
      comm.wait_all(data);
      return nullptr;
    }
    bool right = true;
    std::vector<RequestPtr> data;
    for (int k = 0; k < kRounds; ++k) data.push_back(comm.irecv(0, kDataTag));
    for (int k = 0; k < kRounds; ++k) {
      // Late at first (rounds k and k + kTags queue on one mailbox), then early (receives wait for their sends).
      if (k == 0) comm.sleep_for(2.5e-3);
      const Message m = comm.recv(0, tags::make(Channel::Activation, k % kTags));
      right = right && m.payload.ints == std::vector<std::int64_t>{comm.rank(), k};
    }
    for (int k = 0; k < kRounds; ++k) {
      comm.wait(data[static_cast<std::size_t>(k)]);
      const Message m = comm.take(data[static_cast<std::size_t>(k)]);
      right = right && m.payload.ints == std::vector<std::int64_t>{comm.rank(), k};
    }
    return right;
  });
  ASSERT_TRUE(r.ok) << r.error;
  for (int d = 1; d <= kReceivers; ++d) EXPECT_TRUE(r.per_rank[static_cast<std::size_t>(d)].get<bool>()) << d;
}

// At 4,096 ranks hundreds of messages arrive at one instant, and DirectMessages handles them as a batch, reading ahead
// a few dozen at a time. With more receivers than one read-ahead: control messages (timed alone) and data messages
// (sharing the sender's link, so that they end together) that arrive at one instant each reach their own receive,
// each receiver resumes once (those of the control messages in the order sent), and a receive cancelled while its
// message is in flight takes nothing.
TEST(DirectMessages, ManyMessagesArrivingAtOneInstantEachReachTheirOwnReceive) {
  constexpr int kReceivers = 80;
  constexpr double kSendAt = 0.1;
  const Tag doomed_tag = tags::make(Channel::Activation, 4);
  int control_resumes = 0, data_resumes = 0;  // counted in the simulation's process, across its ranks
  const auto r = run_simulated(switch_of(kReceivers + 1), [&](Comm& comm) -> nlohmann::json {
    if (comm.rank() == 0) {
      comm.sleep_for(kSendAt);
      for (int d = 1; d <= kReceivers; ++d) comm.post(d, kControlTag, Payload{{}, {d}}, kControlBytes);
      for (int d = 5; d <= kReceivers; d += 5) comm.post(d, doomed_tag, Payload{{}, {-d}}, kControlBytes);
      std::vector<RequestPtr> data;
      for (int d = 1; d <= kReceivers; ++d) data.push_back(comm.isend(d, kDataTag, Payload{{}, {d}}, 1e-4 * kBandwidth));
      comm.wait_all(data);
      return nullptr;
    }
    const int rank = comm.rank();
    RequestPtr doomed = rank % 5 == 0 ? comm.irecv(0, doomed_tag) : nullptr;
    RequestPtr control = comm.irecv(0, kControlTag);
    RequestPtr data = comm.irecv(0, kDataTag);
    if (doomed) {
      comm.sleep_for(kSendAt + kLatency - comm.now());  // its message left at kSendAt and arrives after 2 kLatency
      comm.cancel(doomed);
    }
    comm.wait(control);
    const int control_turn = control_resumes++;
    const double control_at = comm.now();
    bool right = comm.take(control).payload.ints == std::vector<std::int64_t>{rank};
    comm.wait(data);
    const int data_turn = data_resumes++;
    const double data_at = comm.now();
    right = right && comm.take(data).payload.ints == std::vector<std::int64_t>{rank};
    return nlohmann::json::array({right, control_at, data_at, control_turn, data_turn});
  });
  ASSERT_TRUE(r.ok) << r.error;
  const auto& first = r.per_rank[1];
  std::vector<int> data_turns;
  for (int d = 1; d <= kReceivers; ++d) {
    const auto& mine = r.per_rank[static_cast<std::size_t>(d)];
    EXPECT_TRUE(mine[0].get<bool>()) << d;
    EXPECT_EQ(mine[1].get<double>(), first[1].get<double>()) << d;  // one instant for all
    EXPECT_EQ(mine[2].get<double>(), first[2].get<double>()) << d;
    EXPECT_EQ(mine[3].get<int>(), d - 1) << d;  // resumed in the order sent
    data_turns.push_back(mine[4].get<int>());
  }
  // The data messages in the order the flow model ends them (not the order sent): each receiver resumed once.
  std::sort(data_turns.begin(), data_turns.end());
  for (int d = 1; d <= kReceivers; ++d) EXPECT_EQ(data_turns[static_cast<std::size_t>(d - 1)], d - 1);
  EXPECT_GT(first[2].get<double>(), first[1].get<double>());
}

TEST(DirectMessages, ASendEndsAtTheArrivalAndWaitAnyTakesTheFirstToEnd) {
  const auto r = run_simulated(switch_of(2), [](Comm& comm) -> nlohmann::json {
    if (comm.rank() == 0) {
      // A data message that ends after 1 ms, then a control message that ends after 2 us: the control first.
      RequestPtr data = comm.isend(1, kDataTag, Payload{}, 1e-3 * kBandwidth);
      RequestPtr control = comm.isend(1, kControlTag, Payload{{}, {1}}, kControlBytes);
      const double t0 = comm.now();
      std::vector<RequestPtr> both{data, control};
      const std::size_t first = comm.wait_any(both);
      const double control_end = comm.now() - t0;
      comm.wait(data);
      // Then the other way round: a control message posted 2 ms later than a 1 ms data message.
      comm.sleep_for(0.01);
      RequestPtr data2 = comm.isend(1, kDataTag, Payload{}, 1e-3 * kBandwidth);
      comm.sleep_for(2e-3);
      RequestPtr control2 = comm.isend(1, kControlTag, Payload{{}, {2}}, kControlBytes);
      comm.wait(control2);
      comm.wait(data2);
      return nlohmann::json::array({first, control_end});
    }
    std::vector<RequestPtr> both{comm.irecv(0, kDataTag), comm.irecv(0, kControlTag)};
    const std::size_t first = comm.wait_any(both);
    comm.wait(both[1 - first]);
    std::vector<RequestPtr> again{comm.irecv(0, kDataTag), comm.irecv(0, kControlTag)};
    const std::size_t second = comm.wait_any(again);
    const double data_at = comm.now();
    comm.wait(again[1 - second]);
    return nlohmann::json::array({first, second, data_at});
  });
  ASSERT_TRUE(r.ok) << r.error;
  const auto sender = r.per_rank[0];
  EXPECT_EQ(sender[0].get<std::size_t>(), 1u);  // the control message's send ended first
  EXPECT_NEAR(sender[1].get<double>(), 2 * kLatency + kControlBytes / kBandwidth, 1e-12);
  const auto receiver = r.per_rank[1];
  EXPECT_EQ(receiver[0].get<std::size_t>(), 1u);
  EXPECT_EQ(receiver[1].get<std::size_t>(), 0u);  // the data message ended 1 ms before the control one
  EXPECT_GT(receiver[2].get<double>(), 1e-3);
}

TEST(DirectMessages, ACancelledReceiveTakesNothing) {
  const auto r = run_simulated(switch_of(2), [](Comm& comm) -> nlohmann::json {
    if (comm.rank() == 0) {
      comm.sleep_for(0.1);
      comm.post(1, kControlTag, Payload{{}, {42}}, kControlBytes);
      return nullptr;
    }
    RequestPtr cancelled = comm.irecv(0, kControlTag);
    comm.cancel(cancelled);
    {
      RequestPtr dropped = comm.irecv(0, kControlTag);  // destroyed while pending: takes nothing either
    }
    const Message m = comm.recv(0, kControlTag);
    return m.payload.ints.at(0);
  });
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.per_rank[1].get<int>(), 42);
}

TEST(DirectMessages, AReceiveThatNothingMatchesIsReportedAsADeadlock) {
  const auto r = run_simulated(switch_of(2), [](Comm& comm) -> nlohmann::json {
    if (comm.rank() == 1) comm.recv(0, kControlTag);
    return nullptr;
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("deadlock"), std::string::npos) << r.error;
}

}  // namespace quorum
