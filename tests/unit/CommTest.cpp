// The SimGrid backend of Comm: matching rules, agents and shared state, and the run checks (deadlock, agents left
// running, exceptions).
#include <gtest/gtest.h>

#include "algorithms/comm/Schedule.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::run_simulated;
using testing::star;

TEST(SimComm, MessagesOfOneTripleArriveInOrderAndTagsAreMatchedSeparately) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    const Tag a = tags::make(Channel::Benchmark, 1), b = tags::make(Channel::Benchmark, 2);
    nlohmann::json got = nlohmann::json::array();
    if (comm.rank() == 0) {
      std::vector<RequestPtr> sends;
      for (int i = 0; i < 3; ++i) sends.push_back(comm.isend(1, a, Payload{{}, {i}}, 8));
      sends.push_back(comm.isend(1, b, Payload{{}, {100}}, 8));
      comm.wait_all(sends);
    } else {
      got.push_back(comm.recv(0, b).payload.ints[0]);  // b first, although sent last
      for (int i = 0; i < 3; ++i) got.push_back(comm.recv(0, a).payload.ints[0]);
    }
    return got;
  });
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.per_rank[1], nlohmann::json({100, 0, 1, 2}));
}

TEST(SimComm, AnySourceTagsCollectFromEveryone) {
  const auto result = run_simulated(star(5), [](Comm& comm) {
    const Tag t = tags::make_any_source(Channel::Benchmark, 3);
    nlohmann::json got = nlohmann::json::array();
    if (comm.rank() != 0) {
      comm.send(0, t, Payload{{static_cast<float>(comm.rank())}, {}}, 4);
    } else {
      int sum = 0;
      for (int i = 0; i < 4; ++i) {
        Message m = comm.recv(kAnySource, t);
        EXPECT_EQ(static_cast<int>(m.payload.values[0]), m.source);
        sum += m.source;
      }
      got.push_back(sum);
    }
    return got;
  });
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.per_rank[0][0], 10);
}

TEST(SimComm, MixingAnySourceAndDirectedReceivesOfATagIsRefused) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    comm.irecv(1 - comm.rank(), tags::make_any_source(Channel::Benchmark, 0));
    return nlohmann::json();
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("any-source"), std::string::npos) << result.error;
}

TEST(SimComm, MessageTimeIsLatencyPlusSizeOverBandwidth) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    if (comm.rank() == 0) comm.send(1, tags::make(Channel::Benchmark), Payload{}, 10e6);
    else comm.recv(0, tags::make(Channel::Benchmark));
    return nlohmann::json(comm.now());
  });
  ASSERT_TRUE(result.ok) << result.error;
  // star(): 1 us per link, two links, 10 GB/s.
  EXPECT_NEAR(result.per_rank[1].get<double>(), 2e-6 + 10e6 / 10e9, 1e-9);
}

TEST(SimComm, WaitTimeIsAccounted) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark);
    if (comm.rank() == 0) {
      comm.sleep_for(0.5);
      comm.send(1, t, Payload{}, 0);
    } else {
      comm.recv(0, t);
    }
    return nlohmann::json(comm.blocked_seconds());
  });
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_NEAR(result.per_rank[1].get<double>(), 0.5, 1e-3);
}

// post() is fire-and-forget (PostedSends): many posts in flight, a sender that ends before its messages are received,
// messages nobody ever receives, and an agent joined while its posts are still pending.
TEST(SimComm, PostedMessagesOutliveTheirSenderAndArriveInOrder) {
  const auto result = run_simulated(star(3), [](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark, 4);
    nlohmann::json got = nlohmann::json::array();
    if (comm.rank() == 0) {
      for (int i = 0; i < 100; ++i) comm.post(1, t, Payload{{}, {i}}, 8);  // more than one reaping round
      comm.post(2, t, Payload{{}, {7}}, 8);                                 // never received
    } else if (comm.rank() == 1) {
      comm.sleep_for(1.0);  // rank 0 has long finished
      for (int i = 0; i < 100; ++i) got.push_back(comm.recv(0, t).payload.ints[0]);
      got.push_back(comm.now());
    }
    return got;
  });
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(result.per_rank[1].size(), 101u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(result.per_rank[1][static_cast<std::size_t>(i)], i);
  // Rendezvous: each message moves once its receive is posted (2 us of latency in star()), one after the other.
  EXPECT_GT(result.per_rank[1][100].get<double>(), 1.0);
  EXPECT_LT(result.per_rank[1][100].get<double>(), 1.001);
}

TEST(SimComm, JoiningAnAgentDoesNotWaitForItsUnreceivedPosts) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    auto agent = comm.spawn("poster", [](Comm& c) {
      c.post(1 - c.rank(), tags::make(Channel::Benchmark, 5), Payload{}, 8);  // nobody receives it
      c.sleep_for(0.125);
    });
    agent->join();
    return nlohmann::json(comm.now());
  });
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_NEAR(result.per_rank[0].get<double>(), 0.125, 1e-12);
  EXPECT_NEAR(result.per_rank[1].get<double>(), 0.125, 1e-12);
}

TEST(SimComm, AgentsShareStateThroughMutexAndConditionVariable) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    auto mutex = comm.make_mutex();
    auto cv = comm.make_condition_variable();
    int value = 0;
    bool ready = false;
    auto agent = comm.spawn("helper", [&](Comm& agent_comm) {
      agent_comm.sleep_for(0.25);
      std::unique_lock lock(*mutex);
      value = 42 + agent_comm.rank();
      ready = true;
      cv->notify_all();
    });
    {
      std::unique_lock lock(*mutex);
      cv->wait(lock, [&] { return ready; });
    }
    agent->join();
    return nlohmann::json({value, comm.now()});
  });
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.per_rank[1][0], 43);
  EXPECT_NEAR(result.per_rank[1][1].get<double>(), 0.25, 1e-9);
}

// CooperativeMutex.hpp: a lock held across a blocking call keeps the others out, and goes to them in arrival order.
TEST(SimComm, ALockHeldWhileBlockedPassesToItsWaitersInTheOrderTheyCame) {
  const auto result = run_simulated(star(1), [](Comm& comm) {
    auto mutex = comm.make_mutex();
    std::vector<std::pair<int, double>> entered;  // (agent, when it got the lock)
    auto enter = [&](Comm& c, int who, double arrive_s) {
      c.sleep_for(arrive_s);
      std::lock_guard lock(*mutex);
      entered.emplace_back(who, c.now());
      c.sleep_for(0.5);  // blocked inside the critical section
    };
    auto second = comm.spawn("second", [&](Comm& c) { enter(c, 2, 0.2); });
    auto first = comm.spawn("first", [&](Comm& c) { enter(c, 1, 0.1); });
    enter(comm, 0, 0.0);
    first->join();
    second->join();
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [who, when] : entered) out.push_back({who, when});
    return out;
  });
  ASSERT_TRUE(result.ok) << result.error;
  const auto& entered = result.per_rank[0];
  ASSERT_EQ(entered.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(entered[static_cast<std::size_t>(i)][0], i);
    EXPECT_NEAR(entered[static_cast<std::size_t>(i)][1].get<double>(), 0.5 * i, 1e-12);
  }
}

// notify_all wakes the agents waiting when it is called, once each, even when a woken agent waits again before the
// notifier has finished waking the others (each wake is a simcall, during which the woken run).
TEST(SimComm, NotifyAllWakesEachWaiterOnceAndNotThoseThatWaitAgain) {
  const auto result = run_simulated(star(1), [](Comm& comm) {
    auto mutex = comm.make_mutex();
    auto cv = comm.make_condition_variable();
    int round = 0;
    std::vector<int> wakes(3, 0);
    std::vector<std::unique_ptr<Agent>> waiters;
    for (int w = 0; w < 3; ++w) {
      waiters.push_back(comm.spawn("waiter", [&, w](Comm&) {
        std::unique_lock lock(*mutex);
        while (round < 3 && wakes[static_cast<std::size_t>(w)] < 10) {  // 10: a notifier that kept waking them
          cv->wait(lock);  // no predicate: every return is counted
          ++wakes[static_cast<std::size_t>(w)];
        }
      }));
    }
    for (int r = 0; r < 3; ++r) {
      comm.sleep_for(1.0);
      {
        std::lock_guard lock(*mutex);
        ++round;
      }
      cv->notify_all();
    }
    for (auto& w : waiters) w->join();
    return nlohmann::json(wakes);
  });
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.per_rank[0], nlohmann::json({3, 3, 3}));
}

TEST(SimComm, ScheduleRunsContinuationsAsRequestsComplete) {
  const auto result = run_simulated(star(3), [](Comm& comm) {
    const Tag t = tags::make(Channel::Benchmark);
    int received = 0;
    Schedule s(comm);
    for (int peer = 0; peer < 3; ++peer) {
      if (peer == comm.rank()) continue;
      s.on(comm.isend(peer, t, Payload{{}, {comm.rank()}}, 100));
      s.on(comm.irecv(peer, t), [&](const RequestPtr& r) { received += static_cast<int>(comm.take(r).payload.ints[0]) + 1; });
    }
    s.run();
    return nlohmann::json(received);
  });
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.per_rank[0], 2 + 3);
  EXPECT_EQ(result.per_rank[2], 1 + 2);
}

TEST(SimComm, ComputeInPartsEndsWhereComputeEndsWithTheDelaySpreadInProportion) {
  // Rank 1 is slow_worker x3: 0.3 s instead of 0.1 s, so its parts of 1/4, 1/4 and 1/2 end at 0.075, 0.15 and 0.3 s.
  StragglerSpec slow;
  slow.kind = "slow_worker";
  slow.rank_list = {1};
  slow.factor = 3;
  const auto r = run_simulated(
      star(2),
      [](Comm& comm) {
        const double parts[] = {0.25, 0.25, 0.5};
        nlohmann::json ends = nlohmann::json::array();
        bool math_done = false;
        const double whole = comm.compute(0, {});
        const double t0 = comm.now();
        const double charged = comm.compute_in_parts(
            1, [&] { math_done = true; }, parts, [&](std::size_t) {
              ends.push_back(math_done ? comm.now() - t0 : -1.0);
            });
        return nlohmann::json{{"whole", whole}, {"charged", charged}, {"ends", ends},
                              {"compute_s", comm.compute_seconds()}};
      },
      testing::constant_compute(0.1, 2, slow));
  ASSERT_TRUE(r.ok) << r.error;
  for (int rank = 0; rank < 2; ++rank) {
    const auto& j = r.per_rank[static_cast<std::size_t>(rank)];
    const double d = rank == 1 ? 0.3 : 0.1;
    EXPECT_NEAR(j["whole"].get<double>(), d, 1e-12);
    EXPECT_EQ(j["charged"].get<double>(), j["whole"].get<double>());
    EXPECT_NEAR(j["compute_s"].get<double>(), 2 * d, 1e-12);
    ASSERT_EQ(j["ends"].size(), 3u);
    EXPECT_NEAR(j["ends"][0].get<double>(), d / 4, 1e-9);
    EXPECT_NEAR(j["ends"][1].get<double>(), d / 2, 1e-9);
    EXPECT_NEAR(j["ends"][2].get<double>(), d, 1e-9);
  }
}

TEST(SimComm, DeadlockIsReportedWithTheBlockedRanks) {
  const auto result = run_simulated(star(4), [](Comm& comm) {
    if (comm.rank() == 2) comm.recv(3, tags::make(Channel::Benchmark));  // nobody sends
    return nlohmann::json();
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("deadlock"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("ranks 2)"), std::string::npos) << result.error;
}

TEST(SimComm, ExceptionsInRanksAreReported) {
  const auto result = run_simulated(star(2), [](Comm& comm) -> nlohmann::json {
    if (comm.rank() == 1) throw std::runtime_error("boom");
    return nullptr;
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("rank 1: boom"), std::string::npos) << result.error;
}

TEST(SimComm, AgentsLeftBlockedAreReported) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    auto agent = comm.spawn("listener", [](Comm& c) { c.recv(kAnySource, tags::make_any_source(Channel::Control)); });
    return nlohmann::json();  // never stops its agent
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("agents"), std::string::npos) << result.error;
}

}  // namespace quorum
