// Comm::exchange, a chain of pairwise exchanges (a butterfly): the simulator progresses it in maestro, without
// resuming the agent between phases, and must give what the agent's own loop gives: the same messages, the same
// simulated times and the same wait time. The loop runs where the simulator may not progress in maestro (an agent
// whose waits are observed), so both are compared on one platform and one network model.
#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tests/support/AgentLoopReference.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::run_simulated;
using testing::star;

namespace {

// Running sums of the ranks exchanged along a chain of `phases` phases, phase j to partner(rank, j) on a tag of its
// own, its message (j + 1) x `bytes` (so the phases take different times). Each rank starts at its own time (rank x 1
// ms) so that partners wait for each other differently. Returns the rank, the sum, the rank each phase received from,
// whether each phase's received() ran in maestro, the time the chain ended and the wait time it added.
nlohmann::json running_sums(Comm& comm, bool observed, int phases, const std::function<int(int, int)>& partner,
                            double bytes) {
  testing::IgnoredWaits observer;
  if (observed) comm.observe_waits(&observer);
  comm.sleep_for(1e-3 * comm.rank());
  std::int64_t sum = comm.rank();
  nlohmann::json sources = nlohmann::json::array();
  nlohmann::json in_maestro = nlohmann::json::array();
  Comm::ExchangeChain chain;
  chain.phases = phases;
  chain.partner = [&](int j) { return partner(comm.rank(), j); };
  chain.tag = [](int j) { return tags::make(Channel::Benchmark, j); };
  chain.payload = [&sum](int) { return Payload{{}, {sum}}; };
  chain.logical_bytes = [bytes](int j) { return bytes * (j + 1); };
  chain.received = [&](int, Message& m) {
    sum += m.payload.ints.at(0);
    sources.push_back(m.source);
    in_maestro.push_back(simgrid::s4u::Actor::is_maestro());
  };
  const double blocked_before = comm.blocked_seconds();
  comm.exchange(chain);
  return {{"rank", comm.rank()},
          {"sum", sum},
          {"sources", sources},
          {"in_maestro", in_maestro},
          {"end", comm.now()},
          {"blocked", comm.blocked_seconds() - blocked_before}};
}

// A butterfly over every rank (a power of two): phase j's partner is rank ^ 2^j.
nlohmann::json butterfly(Comm& comm, bool observed) {
  int phases = 0;
  while ((1 << phases) < comm.size()) ++phases;
  return running_sums(comm, observed, phases, [](int rank, int j) { return rank ^ (1 << j); }, 1e6);
}

// Twenty phases on 4 ranks, more than the exchange keeps its partners and tags for in place (16): phase j's partner is
// rank ^ (1 + j % 3), a cycle that 16 does not divide, so that a phase given another phase's partner receives from
// another rank. The running sums double from phase 2 on: 6 x 2^18 at the end.
int long_chain_partner(int rank, int phase) { return rank ^ (1 + phase % 3); }

nlohmann::json long_chain(Comm& comm, bool observed) {
  return running_sums(comm, observed, 20, long_chain_partner, 1e5);
}

// A chain of `phases` phases to `partner`, with empty 64-byte messages and nothing done with what arrives.
Comm::ExchangeChain small_chain(int phases, std::function<int(int)> partner) {
  Comm::ExchangeChain chain;
  chain.phases = phases;
  chain.partner = std::move(partner);
  chain.tag = [](int j) { return tags::make(Channel::Benchmark, j); };
  chain.payload = [](int) { return Payload{}; };
  chain.logical_bytes = [](int) { return 64.0; };
  chain.received = [](int, Message&) {};
  return chain;
}

}  // namespace

TEST(ExchangeChain, ProgressedInMaestroItGivesTheAgentLoopsMessagesTimesAndWaits) {
  const int ranks = 8;
  // Ends and waits exactly equal: the same events at the same instants.
  testing::expect_maestro_gives_agent_loops_times(
      ranks, butterfly, [](const nlohmann::json& k, const nlohmann::json& l) {
        EXPECT_EQ(k["sum"], ranks * (ranks - 1) / 2);
        EXPECT_EQ(l["sum"], k["sum"]);
        EXPECT_GT(k["blocked"].get<double>(), 0.0);
        EXPECT_EQ(k["in_maestro"], nlohmann::json({true, true, true}));
        EXPECT_EQ(l["in_maestro"], nlohmann::json({false, false, false}));
      });
}

TEST(ExchangeChain, AChainLongerThanThePeersKeptInPlaceGivesTheAgentLoopsSumsTimesAndWaits) {
  testing::expect_maestro_gives_agent_loops_times(4, long_chain, [](const nlohmann::json& k, const nlohmann::json& l) {
    nlohmann::json sources = nlohmann::json::array();
    for (int j = 0; j < 20; ++j) sources.push_back(long_chain_partner(k["rank"].get<int>(), j));
    EXPECT_EQ(k["sources"], sources);
    EXPECT_EQ(l["sources"], sources);
    EXPECT_EQ(k["sum"], std::int64_t{6} << 18);
    EXPECT_EQ(l["sum"], k["sum"]);
    EXPECT_EQ(k["in_maestro"], nlohmann::json(std::vector<bool>(20, true)));
    EXPECT_EQ(l["in_maestro"], nlohmann::json(std::vector<bool>(20, false)));
  });
}

TEST(ExchangeChain, AnErrorInAPhaseReachesItsAgent) {
  const auto result = run_simulated(star(4), [](Comm& comm) {
    Comm::ExchangeChain chain = small_chain(2, [&comm](int j) { return comm.rank() ^ (1 << j); });
    chain.received = [&comm](int j, Message&) {
      if (j == 1 && comm.rank() == 2) throw std::runtime_error("bad phase");
    };
    comm.exchange(chain);
    return nlohmann::json();
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("rank 2: bad phase"), std::string::npos) << result.error;
}

// In maestro a phase's ends are made without irecv and isend (SimComm's KernelExchange): a partner out of range is
// still refused as irecv refuses it, at the phase that names it.
TEST(ExchangeChain, APartnerOutOfRangeIsRefusedAsIrecvRefusesIt) {
  const auto result = run_simulated(star(4), [](Comm& comm) {
    comm.exchange(small_chain(2, [&comm](int j) { return j == 0 ? comm.rank() ^ 1 : comm.size() + comm.rank(); }));
    return nlohmann::json();
  });
  EXPECT_FALSE(result.ok);
  // Whichever rank fails first is reported: each names a partner of 4 to 7.
  EXPECT_NE(result.error.find(": irecv: rank "), std::string::npos) << result.error;
  EXPECT_NE(result.error.find(" out of range"), std::string::npos) << result.error;
}

TEST(ExchangeChain, AChainWhosePartnerNeverAnswersIsADeadlockNotACrash) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    if (comm.rank() == 1) return nlohmann::json();
    comm.exchange(small_chain(1, [](int) { return 1; }));
    return nlohmann::json();
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("deadlock"), std::string::npos) << result.error;
}

}  // namespace quorum
