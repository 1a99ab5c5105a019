// Schedule::run: the simulator runs a schedule's continuations in maestro, without resuming the agent between them,
// and must give what the agent's own loop gives: the same requests chosen in the same order, the same simulated times
// and the same wait time. The loop runs where the simulator may not progress in maestro (an agent whose waits are
// observed), so both are compared on one platform and one network model.
#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>

#include <stdexcept>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "algorithms/comm/Schedule.hpp"
#include "tests/support/AgentLoopReference.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::run_simulated;
using testing::star;

namespace {

// Every rank sends to and receives from every other, so that several requests are pending at once; each receipt
// registers a reply and its receive, as a continuation may. Apart: sizes that differ by pair and starts at rank x 1
// ms, so the requests end one by one. Together: one size and one start, so a rank's receives end at one instant and
// the order among them is the waits' choice (the first to end after a wait, then the first ended by position).
// Returns the order in which the messages were taken (a sender's rank, or 100 + its rank for its reply), whether each
// continuation ran in maestro, the time it ended and the wait it added.
nlohmann::json all_to_all_with_replies(Comm& comm, bool observed, bool together) {
  testing::IgnoredWaits observer;
  if (observed) comm.observe_waits(&observer);
  if (!together) comm.sleep_for(1e-3 * comm.rank());
  const int me = comm.rank(), n = comm.size();
  const Tag first = tags::make(Channel::Benchmark, 0), reply = tags::make(Channel::Benchmark, 1);
  nlohmann::json taken = nlohmann::json::array(), in_maestro = nlohmann::json::array();
  Schedule schedule(comm);
  for (int peer = 0; peer < n; ++peer) {
    if (peer == me) continue;
    schedule.on(comm.isend(peer, first, Payload{{}, {me}}, together ? 1e6 : 1e5 * (1 + me + n * peer)));
    schedule.on(comm.irecv(peer, first), [&, peer](const RequestPtr& r) {
      taken.push_back(comm.take(r).payload.ints.at(0));
      in_maestro.push_back(simgrid::s4u::Actor::is_maestro());
      schedule.on(comm.isend(peer, reply, Payload{{}, {me}}, together ? 1e4 : 1e4 * (1 + peer)));
      schedule.on(comm.irecv(peer, reply), [&](const RequestPtr& r2) {
        taken.push_back(100 + comm.take(r2).payload.ints.at(0));
        in_maestro.push_back(simgrid::s4u::Actor::is_maestro());
      });
    });
  }
  const double blocked_before = comm.blocked_seconds();
  schedule.run();
  return {{"taken", taken},
          {"in_maestro", in_maestro},
          {"end", comm.now()},
          {"blocked", comm.blocked_seconds() - blocked_before}};
}

// The phase-fidelity ring (a binomial tree of the real values, then the two bulk messages: two schedules), as
// Allreduce-SGD and Prague's groups run it, from staggered starts.
nlohmann::json ring(Comm& comm, bool observed) {
  testing::IgnoredWaits observer;
  if (observed) comm.observe_waits(&observer);
  comm.sleep_for(1e-3 * comm.rank());
  Group group;
  for (int r = 0; r < comm.size(); ++r) group.members.push_back(r);
  std::vector<float> data = {static_cast<float>(comm.rank()), 1.0f};
  const double blocked_before = comm.blocked_seconds();
  ring_allreduce(comm, group, data, 4e6, Fidelity::Phase, Channel::Benchmark);
  return {{"data", data}, {"end", comm.now()}, {"blocked", comm.blocked_seconds() - blocked_before}};
}

bool any_true(const nlohmann::json& flags) {
  for (const auto& f : flags)
    if (f.get<bool>()) return true;
  return false;
}

}  // namespace

class ScheduleInMaestroEnds : public ::testing::TestWithParam<bool> {};

TEST_P(ScheduleInMaestroEnds, ItChoosesTheAgentLoopsRequestsInItsOrderAtItsTimes) {
  const int ranks = 8;
  const bool together = GetParam();
  testing::expect_maestro_gives_agent_loops_times(
      ranks, [together](Comm& comm, bool observed) { return all_to_all_with_replies(comm, observed, together); },
      [](const nlohmann::json& k, const nlohmann::json& l) {
        EXPECT_EQ(k["taken"].size(), 2u * (ranks - 1));
        EXPECT_EQ(l["taken"], k["taken"]);  // the same choices, in the same order
        EXPECT_GT(k["blocked"].get<double>(), 0.0);
        EXPECT_TRUE(any_true(k["in_maestro"]));
        EXPECT_FALSE(any_true(l["in_maestro"]));
      });
}

INSTANTIATE_TEST_SUITE_P(ApartAndTogether, ScheduleInMaestroEnds, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& ends) {
                           return ends.param ? "EndingTogether" : "EndingApart";
                         });

TEST(ScheduleInMaestro, ThePhaseRingGivesTheAgentLoopsSumsTimesAndWaits) {
  testing::expect_maestro_gives_agent_loops_times(8, ring, [](const nlohmann::json& k, const nlohmann::json& l) {
    EXPECT_EQ(k["data"], nlohmann::json({28.0, 8.0}));
    EXPECT_EQ(l["data"], k["data"]);
  });
}

TEST(ScheduleInMaestro, AnErrorInAContinuationReachesItsAgent) {
  const auto result = run_simulated(star(4), [](Comm& comm) {
    const int partner = comm.rank() ^ 1;
    const Tag tag = tags::make(Channel::Benchmark, 0);
    Schedule schedule(comm);
    schedule.on(comm.isend(partner, tag, Payload{}, 64.0));
    schedule.on(comm.irecv(partner, tag), [&comm](const RequestPtr&) {
      if (comm.rank() == 2) throw std::runtime_error("bad continuation");
    });
    schedule.run();
    return nlohmann::json();
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("rank 2: bad continuation"), std::string::npos) << result.error;
}

TEST(ScheduleInMaestro, AScheduleWhosePeerNeverAnswersIsADeadlockNotACrash) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    if (comm.rank() == 1) return nlohmann::json();
    Schedule schedule(comm);
    schedule.on(comm.irecv(1, tags::make(Channel::Benchmark, 0)));
    schedule.run();
    return nlohmann::json();
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("deadlock"), std::string::npos) << result.error;
}

}  // namespace quorum
