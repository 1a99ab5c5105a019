// wait_any over many requests (sim/simgrid/CommCompletions.hpp): it learns which request ended from the network
// model instead of SimGrid's wait_any, and must make the same choice at the same simulated time: the first request
// in the list that has already ended, else the first to end; and whole scenarios must not change by a bit.
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <vector>

#include "algorithms/comm/RequestList.hpp"
#include "sim/simgrid/SimComm.hpp"
#include "tests/support/Files.hpp"
#include "tests/support/ScenarioHarness.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::run_simulated;
using testing::star;

namespace {

constexpr int kSenders = 20;  // above the default threshold (16), so the watched path is taken
const Tag kTag = tags::make(Channel::Benchmark, 5);

// Restores the process-wide threshold when a test ends.
struct WatchedFrom {
  explicit WatchedFrom(std::size_t requests) { SimComm::set_watched_wait_any_from(requests); }
  ~WatchedFrom() { SimComm::set_watched_wait_any_from(16); }
};
// A threshold no wait reaches: every wait_any goes to SimGrid's.
constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();

// Rank 0 posts one receive per sender (ranks 1..kSenders), optionally sleeps `listen_after` seconds, then calls
// wait_any until all arrived; sender k sends 8 bytes at send_at(k). Rank 0 returns [[sender, time], ...] in the
// order wait_any returned them.
template <typename SendAt>
nlohmann::json arrivals(double listen_after, SendAt send_at) {
  const auto r = run_simulated(star(kSenders + 1), [&](Comm& comm) -> nlohmann::json {
    if (comm.rank() > 0) {
      comm.sleep_for(send_at(comm.rank()));
      comm.send(0, kTag, Payload{{}, {comm.rank()}}, 8);
      return nullptr;
    }
    std::vector<RequestPtr> receives;
    for (int k = 1; k <= kSenders; ++k) receives.push_back(comm.irecv(k, kTag));
    if (listen_after > 0) comm.sleep_for(listen_after);
    nlohmann::json order = nlohmann::json::array();
    while (!receives.empty()) {
      const std::size_t i = comm.wait_any(receives);
      const Message m = comm.take(receives[i]);
      order.push_back({m.payload.ints.at(0), comm.now()});
      receives.erase(receives.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return order;
  });
  EXPECT_TRUE(r.ok) << r.error;
  return r.ok ? r.per_rank[0] : nlohmann::json::array();
}

}  // namespace

TEST(WatchedWaitAny, ReturnsEachMessageWhenItArrivesInArrivalOrder) {
  // Sender k sends at (kSenders + 1 - k) ms: they arrive in reverse rank order, 1 ms apart.
  const auto order = arrivals(0, [](int k) { return 1e-3 * (kSenders + 1 - k); });
  ASSERT_EQ(order.size(), static_cast<std::size_t>(kSenders));
  for (int n = 0; n < kSenders; ++n) {
    const int sender = kSenders - n;
    EXPECT_EQ(order[n][0].get<int>(), sender);
    // Sent at (n + 1) ms; the star's route is two 1 us links.
    EXPECT_GT(order[n][1].get<double>(), 1e-3 * (n + 1));
    EXPECT_LT(order[n][1].get<double>(), 1e-3 * (n + 1) + 1e-4);
  }
}

TEST(WatchedWaitAny, RequestsThatHaveAlreadyEndedComeInListOrder) {
  // Everything has arrived (in reverse order) before rank 0 looks: it gets them in its list's order, at once.
  const auto order = arrivals(1.0, [](int k) { return 1e-3 * (kSenders + 1 - k); });
  ASSERT_EQ(order.size(), static_cast<std::size_t>(kSenders));
  for (int n = 0; n < kSenders; ++n) {
    EXPECT_EQ(order[n][0].get<int>(), n + 1);
    EXPECT_DOUBLE_EQ(order[n][1].get<double>(), 1.0);
  }
}

TEST(WatchedWaitAny, MakesTheSameChoicesAsSimGridsWaitAny) {
  // Arrivals spread over time, several at the same instant, some before rank 0 listens.
  const auto send_at = [](int k) { return 1e-3 * (k % 7); };
  nlohmann::json watched, native;
  {
    WatchedFrom all(2);
    watched = arrivals(2.5e-3, send_at);
  }
  {
    WatchedFrom none(kNever);
    native = arrivals(2.5e-3, send_at);
  }
  EXPECT_EQ(watched, native);
}

namespace {

nlohmann::json piz_daint_scenario(const nlohmann::json& algorithm) {
  return {{"name", "watched-wait-any"},
          {"seed", 3},
          {"platform", {{"name", "piz_daint"}, {"nodes", 64}}},
          {"workload", {{"profile", "resnet50_p100"}, {"iterations", 8}}},
          {"imbalance", {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.32}}},
          {"algorithm", algorithm},
          {"math", {{"model", "none"}}},
          {"output", {{"progress", false}, {"iterations_csv", false}}}};
}

// The summary (wall times aside) with wait_any watched from `watched_from` requests on.
nlohmann::json summary(const nlohmann::json& scenario, std::size_t watched_from) {
  WatchedFrom setting(watched_from);
  auto r = testing::simulate_scenario(scenario);
  EXPECT_TRUE(r.ok) << r.error;
  testing::erase_wall_fields(r.summary);
  return r.summary;
}

}  // namespace

// On Piz Daint with ResNet-50 messages and two delayed ranks, the default (a server's wait over its 63 workers and the
// partial collectives' agents' lists of listeners are watched, the butterflies' and rings' few requests are not) gives
// every algorithm the summary SimGrid's wait_any gives, to the last bit.
TEST(WatchedWaitAny, ScenarioSummariesAreIdenticalToSimGridsWaitAny) {
  for (const nlohmann::json& algorithm :
       {nlohmann::json{{"name", "async_ps"}}, nlohmann::json{{"name", "eamsgd"}}, nlohmann::json{{"name", "wagma"}},
        nlohmann::json{{"name", "eager_sgd"}, {"collective", "solo"}},
        nlohmann::json{{"name", "eager_sgd"}, {"collective", "majority"}}, nlohmann::json{{"name", "adpsgd"}},
        nlohmann::json{{"name", "sgp"}}, nlohmann::json{{"name", "prague"}, {"mode", "smart"}}}) {
    SCOPED_TRACE(algorithm.dump());
    const auto scenario = piz_daint_scenario(algorithm);
    EXPECT_EQ(summary(scenario, 16), summary(scenario, kNever));
  }
}

// Watching every wait_any of two or more requests too. A woken actor then runs first among those that resume at
// that instant (SimGrid's wait_any resumes it in the order communications are finished): the partial collectives'
// and the servers' figures do not move; Prague's do, because the order in which requests reach its group
// generator decides the groups (as ControlCouriersTest shows), which is why the default leaves small spans alone.
TEST(WatchedWaitAny, WatchingEvenSmallWaitsLeavesTheCollectivesAndServersUnchanged) {
  for (const nlohmann::json& algorithm :
       {nlohmann::json{{"name", "async_ps"}}, nlohmann::json{{"name", "eamsgd"}}, nlohmann::json{{"name", "wagma"}},
        nlohmann::json{{"name", "eager_sgd"}, {"collective", "solo"}},
        nlohmann::json{{"name", "eager_sgd"}, {"collective", "majority"}}, nlohmann::json{{"name", "adpsgd"}}}) {
    SCOPED_TRACE(algorithm.dump());
    const auto scenario = piz_daint_scenario(algorithm);
    EXPECT_EQ(summary(scenario, 2), summary(scenario, kNever));
  }
}

// A server's pattern (sim/simgrid/WaitSet.hpp keeps the list registered between calls): each ended receive is
// replaced in place by the next one from the same sender, and senders send several rounds, some at the same
// instant, some while rank 0 is busy, so calls find requests already ended, and ended at once.
TEST(WatchedWaitAny, ReplacingEndedReceivesInPlaceMakesTheSameChoicesAsSimGridsWaitAny) {
  static constexpr int kRounds = 4;
  const auto serve = [] {
    const auto r = run_simulated(star(kSenders + 1), [&](Comm& comm) -> nlohmann::json {
      if (comm.rank() > 0) {
        for (int round = 0; round < kRounds; ++round) {
          comm.sleep_for(1e-3 * ((comm.rank() * (round + 3)) % 5));
          comm.send(0, kTag, Payload{{}, {comm.rank()}}, 8);
        }
        return nullptr;
      }
      std::vector<RequestPtr> receives;
      std::vector<int> left(kSenders, kRounds);
      for (int k = 1; k <= kSenders; ++k) receives.push_back(comm.irecv(k, kTag));
      nlohmann::json order = nlohmann::json::array();
      for (int n = 0; n < kSenders * kRounds; ++n) {
        const std::size_t i = comm.wait_any(receives);
        const Message m = comm.take(receives[i]);
        order.push_back({i, m.payload.ints.at(0), comm.now()});
        comm.sleep_for(n % 3 == 0 ? 1.5e-3 : 0);  // busy: arrivals pile up meanwhile
        if (--left[i] > 0) receives[i] = comm.irecv(static_cast<int>(i) + 1, kTag);
        else receives[i] = comm.irecv(static_cast<int>(i) + 1, tags::make(Channel::Benchmark, 6));  // never sent
      }
      for (const auto& pending : receives) comm.cancel(pending);
      return order;
    });
    EXPECT_TRUE(r.ok) << r.error;
    return r.ok ? r.per_rank[0] : nlohmann::json::array();
  };
  nlohmann::json watched, native;
  {
    WatchedFrom all(2);
    watched = serve();
  }
  {
    WatchedFrom none(kNever);
    native = serve();
  }
  ASSERT_EQ(watched.size(), static_cast<std::size_t>(kSenders * kRounds));
  EXPECT_EQ(watched, native);
}

// A RequestList (algorithms/comm/RequestList.hpp) kept between waits, one receive replaced per wait and the senders
// that are done retired (odd ones) or erased (even ones): the simulator takes up only the changes since the list's
// last wait, and must choose as it would from the whole list without them, also when a wait on a plain span (which
// resyncs the actor's WaitSet: here the same requests, last first) comes in between.
TEST(WatchedWaitAny, AListKeptBetweenWaitsMakesTheSameChoicesAsTheWholeList) {
  const auto serve = [](bool keep_list, int span_every, int senders = kSenders) {
    const auto r = run_simulated(star(senders + 1), [&](Comm& comm) -> nlohmann::json {
      const auto rounds_of = [](int sender) { return 1 + sender % 4; };
      if (comm.rank() > 0) {
        for (int round = 0; round < rounds_of(comm.rank()); ++round) {
          comm.sleep_for(1e-3 * ((comm.rank() * (round + 3)) % 5));
          comm.send(0, kTag, Payload{{}, {comm.rank()}}, 8);
        }
        return nullptr;
      }
      RequestList list;
      std::vector<RequestPtr> whole, still_held;
      std::vector<int> from, left;
      for (int k = 1; k <= senders; ++k) {
        (keep_list ? list.push_back(comm.irecv(k, kTag)) : whole.push_back(comm.irecv(k, kTag)));
        from.push_back(k);
        left.push_back(rounds_of(k));
      }
      nlohmann::json order = nlohmann::json::array();
      for (int n = 0, live = senders; live > 0; ++n) {
        const std::span<const RequestPtr> all = keep_list ? list.all() : std::span<const RequestPtr>(whole);
        std::size_t i = 0;
        if (span_every > 0 && n % span_every == span_every - 1) {  // the live requests, last first, as a span
          std::vector<RequestPtr> reversed;
          std::vector<std::size_t> position;
          for (std::size_t j = all.size(); j-- > 0;)
            if (all[j]) {
              reversed.push_back(all[j]);
              position.push_back(j);
            }
          i = position[comm.wait_any(reversed)];
        } else {
          i = keep_list ? comm.wait_any(list) : comm.wait_any(all);
        }
        const Message m = comm.take(keep_list ? list[i] : whole[i]);
        order.push_back({m.payload.ints.at(0), comm.now()});
        comm.sleep_for(n % 3 == 0 ? 1.5e-3 : 0);  // busy: arrivals pile up meanwhile
        if (--left[i] > 0) {
          RequestPtr next = comm.irecv(from[i], kTag);
          keep_list ? list.set(i, std::move(next)) : void(whole[i] = std::move(next));
        } else if (keep_list && from[i] % 2 == 1) {  // done: odd senders keep their place, retired
          still_held.push_back(list[i]);  // the request outlives its place in the list
          list.retire(i);
          --live;
        } else {
          keep_list ? list.erase(i) : void(whole.erase(whole.begin() + static_cast<std::ptrdiff_t>(i)));
          from.erase(from.begin() + static_cast<std::ptrdiff_t>(i));
          left.erase(left.begin() + static_cast<std::ptrdiff_t>(i));
          --live;
        }
      }
      return order;
    });
    EXPECT_TRUE(r.ok) << r.error;
    return r.ok ? r.per_rank[0] : nlohmann::json::array();
  };
  nlohmann::json kept, kept_and_spans, kept_native, native, native_and_spans;
  {
    WatchedFrom all(2);
    kept = serve(true, 0);
    kept_and_spans = serve(true, 4);
  }
  {
    WatchedFrom none(kNever);
    kept_native = serve(true, 0);  // the list without its retired positions, to SimGrid's wait_any
    native = serve(false, 0);
    native_and_spans = serve(false, 4);
  }
  EXPECT_EQ(kept_native, native);
  int messages = 0;
  for (int k = 1; k <= kSenders; ++k) messages += 1 + k % 4;
  ASSERT_EQ(kept.size(), static_cast<std::size_t>(messages));
  EXPECT_EQ(kept, native);
  EXPECT_EQ(kept_and_spans, native_and_spans);
  EXPECT_NE(native, native_and_spans);  // the spans' own choices differ: they do resync the set otherwise

  // Fewer senders than the default threshold: the list is watched (from 2) while the spans between are not, so its
  // requests are in the set and waited on through their own waiter at once (a partial collective's agent's case).
  constexpr int kFewSenders = 12;
  const nlohmann::json few_kept_and_spans = serve(true, 4, kFewSenders);
  nlohmann::json few_native_and_spans;
  {
    WatchedFrom none(kNever);
    few_native_and_spans = serve(false, 4, kFewSenders);
  }
  EXPECT_FALSE(few_native_and_spans.empty());
  EXPECT_EQ(few_kept_and_spans, few_native_and_spans);
}

// A list that names one request twice cannot be kept in slots (the request has one); wait_any still returns the
// first of the two once it ends. The next call, on a list without the duplicate, works from the set again, and a
// request already done comes before one that has only ended, wherever they stand (SimComm's rule).
TEST(WatchedWaitAny, AListThatNamesARequestTwiceGetsItsFirstPlace) {
  WatchedFrom all(2);
  const auto r = run_simulated(star(3), [&](Comm& comm) -> nlohmann::json {
    if (comm.rank() > 0) {
      comm.sleep_for(1e-3 * (3 - comm.rank()));  // rank 2 first
      comm.send(0, kTag, Payload{{}, {comm.rank()}}, 8);
      return nullptr;
    }
    const RequestPtr from1 = comm.irecv(1, kTag), from2 = comm.irecv(2, kTag);
    std::vector<RequestPtr> twice{from2, from1, from2};
    const std::size_t first = comm.wait_any(twice);
    comm.sleep_for(5e-3);  // from1 ends meanwhile
    std::vector<RequestPtr> once{from1, from2};
    const std::size_t second = comm.wait_any(once);  // from2 is done: it comes before from1, which only ended
    comm.wait(from1);
    return {first, second, comm.take(from1).payload.ints.at(0)};
  });
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.per_rank[0], nlohmann::json({0, 1, 1}));
}

}  // namespace quorum
