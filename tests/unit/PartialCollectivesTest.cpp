// Partial and wait-avoiding collectives: the butterfly grouping (WAGMA Algorithm 1), the activation trees, and the
// solo, majority and wait-avoiding group allreduce in simulation: exact sums without stragglers, eager-SGD's
// stale-contribution semantics, and under skew no version executed twice, every rank finishing, nothing lost.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <numeric>
#include <set>
#include <string>

#include "algorithms/collectives/ActivationTree.hpp"
#include "algorithms/collectives/Barrier.hpp"
#include "algorithms/collectives/ButterflyGrouping.hpp"
#include "algorithms/collectives/PartialAllreduce.hpp"
#include "algorithms/collectives/PartialReduction.hpp"
#include "algorithms/collectives/PowerOfTwoFold.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::constant_compute;
using testing::run_simulated;
using testing::star;

namespace {

std::vector<int> members(std::initializer_list<int> l) { return std::vector<int>(l); }

// Random arrival times: every rank computes a uniform [0, max_s] time per step, and `delayed` random ranks per
// step take delay_s longer.
ComputeModel skewed_compute(int ranks, double max_s, std::uint64_t seed, int delayed = 0, double delay_s = 0) {
  Distribution d;
  d.kind = Distribution::Kind::Uniform;
  d.lo = 0;
  d.hi = max_s;
  StragglerSpec s;
  if (delayed > 0) {
    s.kind = "random_delay";
    s.ranks = delayed;
    s.delay_s = delay_s;
  }
  return ComputeModel(d, StragglerModel(s, ranks, seed), seed);
}

enum class Kind { Solo, Majority, Group };
const char* name_of(Kind k) { return k == Kind::Solo ? "solo" : k == Kind::Majority ? "majority" : "group"; }

PartialAllreduceConfig config_for(Kind k, int p, std::int64_t versions, std::size_t elements, std::uint64_t seed,
                                  int group_size = 0) {
  switch (k) {
    case Kind::Solo: return solo_allreduce_config(versions, 1e6, elements);
    case Kind::Majority: return majority_allreduce_config(versions, 1e6, elements, seed);
    case Kind::Group: {
      const int s = group_size > 0 ? group_size : std::max(1, p / 2);
      return group_allreduce_config(versions, 1e6, std::vector<float>(elements, 0.0f), ButterflyGrouping(p, s));
    }
  }
  return {};
}

// Integer data of rank r for its call t: exact in float, distinct per rank and call.
std::vector<float> data_of(int rank, std::int64_t t, std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>((rank + 1) * 100 + t * 7 + static_cast<std::int64_t>(i));
  return v;
}

}  // namespace

// ------------------------------------------------------------------------------------------------ grouping -----

TEST(ButterflyGrouping, ReproducesThePapersExampleForEightRanksInGroupsOfFour) {
  const ButterflyGrouping g(8, 4);
  const auto step0 = g.groups(0), step1 = g.groups(1);
  ASSERT_EQ(step0.size(), 2u);
  EXPECT_EQ(step0[0].members, members({0, 1, 2, 3}));
  EXPECT_EQ(step0[1].members, members({4, 5, 6, 7}));
  ASSERT_EQ(step1.size(), 2u);
  EXPECT_EQ(step1[0].members, members({0, 1, 4, 5}));
  EXPECT_EQ(step1[1].members, members({2, 3, 6, 7}));
  EXPECT_EQ(g.group_of(6, 1).members, members({2, 3, 6, 7}));
  // Step 2 continues with the next dimensions (shift 4 mod 3 = 1: bits 1 and 2).
  EXPECT_EQ(g.group_of(0, 2).members, members({0, 2, 4, 6}));
}

TEST(ButterflyGrouping, DirectGroupsEqualAlgorithmOneAndPartitionTheRanks) {
  for (int p : {1, 2, 4, 8, 16, 32, 64, 256}) {
    for (int s = 1; s <= p; s *= 2) {
      for (bool dynamic : {true, false}) {
        const ButterflyGrouping g(p, s, dynamic);
        for (std::int64_t t = 0; t < 7; ++t) {
          SCOPED_TRACE("P=" + std::to_string(p) + " S=" + std::to_string(s) + " t=" + std::to_string(t));
          const auto groups = g.groups(t);
          ASSERT_EQ(static_cast<int>(groups.size()), p / s);
          std::vector<int> seen(static_cast<std::size_t>(p), 0);
          for (const auto& group : groups) {
            ASSERT_EQ(group.size(), s);
            for (int r : group.members) {
              ++seen[static_cast<std::size_t>(r)];
              EXPECT_EQ(g.group_of(r, t).members, group.members);
            }
          }
          EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
          if (!dynamic) {
            EXPECT_EQ(g.groups(t).front().members, g.groups(0).front().members);
          }
        }
      }
    }
  }
}

TEST(ButterflyGrouping, DynamicGroupsSpreadAnUpdateToEveryRankWithinLogSOfPSteps) {
  for (auto [p, s] : {std::pair{64, 8}, std::pair{256, 16}, std::pair{32, 4}, std::pair{8, 2}}) {
    for (bool dynamic : {true, false}) {
      const ButterflyGrouping g(p, s, dynamic);
      const int steps = (log2_exact(p) + log2_exact(s) - 1) / log2_exact(s);  // ceil(log_S P)
      std::set<int> reached = {0};
      for (int t = 0; t < steps; ++t) {
        std::set<int> next = reached;
        for (int r : reached)
          for (int m : g.group_of(r, t).members) next.insert(m);
        reached = next;
      }
      // Dynamic groups reach everyone; fixed groups never leave the first group.
      EXPECT_EQ(static_cast<int>(reached.size()), dynamic ? p : s) << "P=" << p << " S=" << s;
    }
  }
}

TEST(ButterflyGrouping, RejectsSizesThatAreNotPowersOfTwo) {
  EXPECT_THROW(ButterflyGrouping(12, 4), std::invalid_argument);
  EXPECT_THROW(ButterflyGrouping(16, 3), std::invalid_argument);
  EXPECT_THROW(ButterflyGrouping(8, 16), std::invalid_argument);
  try {
    ButterflyGrouping(16, 6);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("group_size"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------- activation -----

TEST(ActivationTree, MatchesFigureOneOfTheWagmaPaper) {
  const ActivationTree tree(4);
  EXPECT_EQ(tree.children(1, 1), members({0, 3}));
  EXPECT_EQ(tree.children(0, 1), members({2}));
  EXPECT_TRUE(tree.children(3, 1).empty());
  EXPECT_TRUE(tree.children(2, 1).empty());
  EXPECT_EQ(tree.parent(2, 1), 0);
}

TEST(ActivationTree, EveryRootReachesEveryRankOnceWithinCeilLog2PHops) {
  for (int p = 1; p <= 40; ++p) {
    const ActivationTree tree(p);
    int depth_bound = 0;
    while ((1 << depth_bound) < p) ++depth_bound;
    for (int root = 0; root < p; ++root) {
      std::vector<int> depth(static_cast<std::size_t>(p), -1);
      depth[static_cast<std::size_t>(root)] = 0;
      std::vector<int> frontier = {root};
      while (!frontier.empty()) {
        std::vector<int> next;
        for (int r : frontier)
          for (int c : tree.children(r, root)) {
            ASSERT_EQ(depth[static_cast<std::size_t>(c)], -1) << "P=" << p << " root " << root << ": " << c << " twice";
            depth[static_cast<std::size_t>(c)] = depth[static_cast<std::size_t>(r)] + 1;
            EXPECT_EQ(tree.parent(c, root), r);
            const auto parents = tree.possible_parents(c);
            EXPECT_TRUE(std::find(parents.begin(), parents.end(), r) != parents.end());
            next.push_back(c);
          }
        frontier = next;
      }
      for (int r = 0; r < p; ++r) {
        ASSERT_GE(depth[static_cast<std::size_t>(r)], 0) << "P=" << p << " root " << root << " misses " << r;
        EXPECT_LE(depth[static_cast<std::size_t>(r)], depth_bound);
      }
    }
  }
}

// -------------------------------------------------------------------------------------- no stragglers: exact -----

namespace {

// Every rank computes, lines up with the others (the reductions end at slightly different times), then calls the
// collective with its data for that version; per call: the result's version, sum, group, fresh ranks and own flag.
nlohmann::json lined_up_calls(Comm& comm, PartialAllreduceConfig config, std::int64_t versions, std::size_t n) {
  PartialAllreduce ar(comm, std::move(config));
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t t = 0; t < versions; ++t) {
    comm.compute(t, {});
    barrier(comm, Group::world(comm.size()));
    const PartialResult r = ar.call(data_of(comm.rank(), t, n));
    out.push_back({{"version", r.version}, {"sum", r.sum}, {"group", r.group}, {"fresh", r.fresh},
                   {"own", r.own_data_included}});
  }
  ar.finish();
  return out;
}

}  // namespace

TEST(PartialAllreduce, WithoutStragglersSoloAndMajorityGiveTheExactSum) {
  constexpr std::int64_t kVersions = 4;
  constexpr std::size_t kN = 5;
  for (PartialSchedule schedule : {PartialSchedule::RecursiveDoubling, PartialSchedule::Rabenseifner})
  for (Kind kind : {Kind::Solo, Kind::Majority}) {
    for (int p : {1, 2, 3, 4, 5, 8, 13, 16}) {
      SCOPED_TRACE(std::string(name_of(kind)) + " " + to_string(schedule) + " P=" + std::to_string(p));
      const auto result = run_simulated(
          star(p),
          [&](Comm& comm) {
            auto config = config_for(kind, p, kVersions, kN, 9);
            config.schedule = schedule;
            return lined_up_calls(comm, std::move(config), kVersions, kN);
          },
          constant_compute(0.01, p));
      ASSERT_TRUE(result.ok) << result.error;
      for (int rank = 0; rank < p; ++rank) {
        for (std::int64_t t = 0; t < kVersions; ++t) {
          const auto& r = result.per_rank[static_cast<std::size_t>(rank)][static_cast<std::size_t>(t)];
          EXPECT_EQ(r["version"].get<std::int64_t>(), t);
          EXPECT_TRUE(r["own"].get<bool>());
          EXPECT_EQ(r["fresh"].size(), static_cast<std::size_t>(p));  // everyone arrived in time
          for (std::size_t i = 0; i < kN; ++i) {
            float expected = 0;
            for (int q = 0; q < p; ++q) expected += data_of(q, t, kN)[i];
            ASSERT_EQ(r["sum"][i].get<float>(), expected) << "rank " << rank << " version " << t;
          }
        }
      }
    }
  }
}

TEST(PartialAllreduce, WithoutStragglersTheGroupAllreduceGivesEachGroupsExactSum) {
  constexpr std::int64_t kVersions = 5;
  constexpr std::size_t kN = 11;
  for (PartialSchedule schedule : {PartialSchedule::RecursiveDoubling, PartialSchedule::Rabenseifner})
  for (int p : {1, 2, 4, 8, 16}) {
    for (int s = 1; s <= p; s *= 2) {
      SCOPED_TRACE(std::string(to_string(schedule)) + " P=" + std::to_string(p) + " S=" + std::to_string(s));
      const ButterflyGrouping grouping(p, s);
      const auto result = run_simulated(
          star(p),
          [&](Comm& comm) {
            auto config = config_for(Kind::Group, p, kVersions, kN, 1, s);
            config.schedule = schedule;
            return lined_up_calls(comm, std::move(config), kVersions, kN);
          },
          constant_compute(0.01, p));
      ASSERT_TRUE(result.ok) << result.error;
      for (int rank = 0; rank < p; ++rank) {
        for (std::int64_t t = 0; t < kVersions; ++t) {
          const auto& r = result.per_rank[static_cast<std::size_t>(rank)][static_cast<std::size_t>(t)];
          const Group group = grouping.group_of(rank, t);
          EXPECT_EQ(r["version"].get<std::int64_t>(), t);
          EXPECT_TRUE(r["own"].get<bool>());
          EXPECT_EQ(r["group"].get<std::vector<int>>(), group.members);
          for (std::size_t i = 0; i < kN; ++i) {
            float expected = 0;
            for (int q : group.members) expected += data_of(q, t, kN)[i];
            ASSERT_EQ(r["sum"][i].get<float>(), expected) << "rank " << rank << " version " << t;
          }
        }
      }
    }
  }
}

// ------------------------------------------------------------------------------------ stale contributions -----

// Two ranks' compute times before their calls 0, 1, 2. Rank 1 triggers version 0 at 0 s while rank 0 computes; rank
// 0 triggers version 1 at 1.5 s while rank 1 computes; rank 1 triggers version 2 at 2.4 s, before rank 0 arrives.
constexpr double kComputeTimes[2][3] = {{1.0, 0.5, 1.0}, {0.0, 2.0, 0.4}};

// eager-SGD's Fig. 7: a rank still computing contributes its (null) send buffer; its gradient, once computed, stays
// in the buffer and goes into the next version it contributes to, added to its next gradient.
TEST(PartialAllreduce, SoloAccumulatesALateRanksGradientIntoItsNextContribution) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    PartialAllreduce ar(comm, solo_allreduce_config(3, 1e3, 1));
    nlohmann::json out = nlohmann::json::array();
    for (std::int64_t t = 0; t < 3; ++t) {
      comm.sleep_for(kComputeTimes[comm.rank()][t]);
      const float g = static_cast<float>((comm.rank() + 1) * (t == 0 ? 1 : t == 1 ? 10 : 100));
      const PartialResult r = ar.call({g});  // rank 0: 1, 10, 100; rank 1: 2, 20, 200
      out.push_back({{"version", r.version}, {"sum", r.sum[0]}, {"own", r.own_data_included}, {"fresh", r.fresh},
                     {"time", comm.now()}});
    }
    ar.finish();
    return nlohmann::json{{"calls", out}, {"left", ar.send_buffer()[0]}};
  });
  ASSERT_TRUE(result.ok) << result.error;
  const auto& r0 = result.per_rank[0]["calls"];
  const auto& r1 = result.per_rank[1]["calls"];
  // Version 0: rank 1's gradient and rank 0's null buffer; rank 1 did not wait for rank 0.
  EXPECT_EQ(r1[0]["sum"].get<float>(), 2.0f);
  EXPECT_LT(r1[0]["time"].get<double>(), 0.01);
  EXPECT_EQ(r1[0]["fresh"].get<std::vector<int>>(), members({1}));
  // Rank 0 arrives at 1 s, finds version 0 done and uses it; its gradient was not in it.
  EXPECT_EQ(r0[0]["version"].get<int>(), 0);
  EXPECT_EQ(r0[0]["sum"].get<float>(), 2.0f);
  EXPECT_FALSE(r0[0]["own"].get<bool>());
  EXPECT_NEAR(r0[0]["time"].get<double>(), 1.0, 1e-3);
  // Version 1, triggered by rank 0: its stale 1 plus its fresh 10; rank 1 is computing and contributes nothing.
  EXPECT_EQ(r0[1]["sum"].get<float>(), 11.0f);
  EXPECT_TRUE(r0[1]["own"].get<bool>());
  EXPECT_EQ(r0[1]["fresh"].get<std::vector<int>>(), members({0}));
  EXPECT_EQ(r1[1]["sum"].get<float>(), 11.0f);
  EXPECT_FALSE(r1[1]["own"].get<bool>());
  // Version 2, triggered by rank 1: its stale 20 plus its fresh 200. Rank 0's 100 comes too late and stays behind.
  EXPECT_EQ(r1[2]["sum"].get<float>(), 220.0f);
  EXPECT_EQ(r0[2]["sum"].get<float>(), 220.0f);
  EXPECT_FALSE(r0[2]["own"].get<bool>());
  EXPECT_EQ(result.per_rank[0]["left"].get<float>(), 100.0f);
  EXPECT_EQ(result.per_rank[1]["left"].get<float>(), 0.0f);
}

// WAGMA's Fig. 3: a late rank keeps contributing its last model (Replace) until it deposits a newer one.
TEST(PartialAllreduce, GroupAllreduceContributesALateRanksLastModel) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    const float w0 = comm.rank() == 0 ? 100.0f : 200.0f;  // initial models
    PartialAllreduce ar(comm, group_allreduce_config(3, 1e3, {w0}, ButterflyGrouping(2, 2)));
    nlohmann::json out = nlohmann::json::array();
    for (std::int64_t t = 0; t < 3; ++t) {
      comm.sleep_for(kComputeTimes[comm.rank()][t]);
      const float w = static_cast<float>((comm.rank() + 1) * (t + 1));  // rank 0: 1, 2, 3; rank 1: 2, 4, 6
      const PartialResult r = ar.call({w});
      out.push_back({{"sum", r.sum[0]}, {"own", r.own_data_included}});
    }
    ar.finish();
    return out;
  });
  ASSERT_TRUE(result.ok) << result.error;
  const auto& r0 = result.per_rank[0];
  const auto& r1 = result.per_rank[1];
  EXPECT_EQ(r1[0]["sum"].get<float>(), 102.0f);  // rank 0's initial model + rank 1's fresh one
  EXPECT_FALSE(r0[0]["own"].get<bool>());         // so rank 0 averages (sum + W') / (S + 1)
  EXPECT_TRUE(r1[0]["own"].get<bool>());
  EXPECT_EQ(r0[1]["sum"].get<float>(), 4.0f);     // rank 0's fresh 2 + rank 1's model of call 0
  EXPECT_TRUE(r0[1]["own"].get<bool>());
  EXPECT_FALSE(r1[1]["own"].get<bool>());
  EXPECT_EQ(r1[2]["sum"].get<float>(), 8.0f);     // rank 1's fresh 6 + rank 0's model of call 1, again
  EXPECT_TRUE(r1[2]["own"].get<bool>());
  EXPECT_FALSE(r0[2]["own"].get<bool>());
}

// ------------------------------------------------------------------------------------ late results -----

namespace {

// Four ranks, three versions. Ranks 0-2 call at 1, 2 and 3 s and trigger each version; rank 3 first calls at 2.5 s,
// when versions 0 and 1 have completed (two versions late), then at once again, then at 3.5 s (version 2 completed at
// 3 s). Rank r's data for call t: (r + 1) * 10^t; a Replace rank's initial model: -(r + 1). Per call of rank 3: the
// result's version, sum[0], group, own flag, late flag, reused flag.
nlohmann::json late_rank_calls(Kind kind, LateResultPolicy policy, std::int64_t kept_results) {
  const auto result = run_simulated(star(4), [&](Comm& comm) {
    const int r = comm.rank();
    PartialAllreduceConfig config =
        kind == Kind::Solo ? solo_allreduce_config(3, 1e3, 1)
                           : group_allreduce_config(3, 1e3, {-static_cast<float>(r + 1)}, ButterflyGrouping(4, 2));
    config.late_result = policy;
    config.kept_results = kept_results;
    PartialAllreduce ar(comm, std::move(config));
    nlohmann::json out = nlohmann::json::array();
    constexpr double kSleep[2][3] = {{1.0, 1.0, 1.0}, {2.5, 0.0, 1.0}};
    for (std::int64_t t = 0; t < 3; ++t) {
      comm.sleep_for(kSleep[r == 3 ? 1 : 0][t]);
      const PartialResult res = ar.call({static_cast<float>((r + 1) * (t == 0 ? 1 : t == 1 ? 10 : 100))});
      out.push_back({{"version", res.version}, {"sum", res.has_result() ? res.sum[0] : 0.0f}, {"group", res.group},
                     {"own", res.own_data_included}, {"late", res.late}, {"reused", res.reused}});
    }
    ar.finish();
    return nlohmann::json{{"calls", out}, {"dropped", ar.stats().results_dropped}, {"late", ar.stats().late_calls}};
  });
  EXPECT_TRUE(result.ok) << result.error;
  return result.ok ? result.per_rank[3] : nlohmann::json();
}

}  // namespace

// WAGMA's Algorithm 2 line 9 and eager-SGD's Fig. 7: a rank two versions late gets, at each call, the result of its
// own version (the sum of its own step's group), kept by its agent until it asks.
TEST(PartialAllreduce, ALateRankGetsTheResultOfItsOwnVersion) {
  // Solo (Accumulate): versions 0 and 1 sum ranks 0-2's fresh gradients (6, 60) and rank 3's null buffer; rank 3's
  // 4 and 40 wait in its buffer and go into version 2: 100 + 200 + 300 + 44.
  const auto solo = late_rank_calls(Kind::Solo, LateResultPolicy::OwnVersion, kDefaultKeptResults);
  ASSERT_FALSE(solo.is_null());
  const std::vector<float> solo_sums = {6.0f, 60.0f, 644.0f};
  for (std::size_t t = 0; t < 3; ++t) {
    SCOPED_TRACE("solo call " + std::to_string(t));
    const auto& c = solo["calls"][t];
    EXPECT_EQ(c["version"].get<std::int64_t>(), static_cast<std::int64_t>(t));
    EXPECT_EQ(c["sum"].get<float>(), solo_sums[t]);
    EXPECT_FALSE(c["own"].get<bool>());  // rank 3's data of call t was never in version t
    EXPECT_TRUE(c["late"].get<bool>());
    EXPECT_FALSE(c["reused"].get<bool>());
  }
  EXPECT_EQ(solo["dropped"].get<int>(), 0);
  EXPECT_EQ(solo["late"].get<int>(), 3);
  // Group allreduce (Replace), S = 2: groups {0,1},{2,3} at steps 0 and 2, {0,2},{1,3} at step 1. Rank 3 contributes
  // its initial -4 to versions 0 and 1, and its model of call 1 (40) to version 2.
  const auto group = late_rank_calls(Kind::Group, LateResultPolicy::OwnVersion, kDefaultKeptResults);
  ASSERT_FALSE(group.is_null());
  const std::vector<float> group_sums = {3.0f - 4.0f, 20.0f - 4.0f, 300.0f + 40.0f};
  const std::vector<std::vector<int>> groups = {{2, 3}, {1, 3}, {2, 3}};
  for (std::size_t t = 0; t < 3; ++t) {
    SCOPED_TRACE("group call " + std::to_string(t));
    const auto& c = group["calls"][t];
    EXPECT_EQ(c["version"].get<std::int64_t>(), static_cast<std::int64_t>(t));
    EXPECT_EQ(c["sum"].get<float>(), group_sums[t]);
    EXPECT_EQ(c["group"].get<std::vector<int>>(), groups[t]);
    EXPECT_FALSE(c["own"].get<bool>());
  }
}

// fflib2's single receive buffer: a late rank reads the newest completed result, and reads it again while nothing
// newer has completed.
TEST(PartialAllreduce, NewestLateResultReadsTheSingleReceiveBufferAgain) {
  const auto solo = late_rank_calls(Kind::Solo, LateResultPolicy::Newest, kDefaultKeptResults);
  const auto group = late_rank_calls(Kind::Group, LateResultPolicy::Newest, kDefaultKeptResults);
  ASSERT_FALSE(solo.is_null() || group.is_null());
  const std::vector<std::int64_t> versions = {1, 1, 2};
  const std::vector<bool> reused = {false, true, false};
  const std::vector<float> solo_sums = {60.0f, 60.0f, 644.0f}, group_sums = {16.0f, 16.0f, 340.0f};
  for (std::size_t t = 0; t < 3; ++t) {
    SCOPED_TRACE("call " + std::to_string(t));
    EXPECT_EQ(solo["calls"][t]["version"].get<std::int64_t>(), versions[t]);
    EXPECT_EQ(solo["calls"][t]["sum"].get<float>(), solo_sums[t]);
    EXPECT_EQ(solo["calls"][t]["reused"].get<bool>(), reused[t]);
    EXPECT_EQ(group["calls"][t]["version"].get<std::int64_t>(), versions[t]);
    EXPECT_EQ(group["calls"][t]["sum"].get<float>(), group_sums[t]);
  }
}

// Beyond kept_results the oldest result is dropped and its call gets none; the bound holds the memory.
TEST(PartialAllreduce, ResultsBeyondTheKeptBoundAreDropped) {
  const auto solo = late_rank_calls(Kind::Solo, LateResultPolicy::OwnVersion, 1);
  ASSERT_FALSE(solo.is_null());
  EXPECT_EQ(solo["dropped"].get<int>(), 1);  // version 0, when version 1 completed
  EXPECT_EQ(solo["calls"][0]["version"].get<std::int64_t>(), -1);
  EXPECT_EQ(solo["calls"][1]["version"].get<std::int64_t>(), 1);
  EXPECT_EQ(solo["calls"][2]["version"].get<std::int64_t>(), 2);
  const auto bad = run_simulated(star(1), [](Comm& comm) {
    auto config = solo_allreduce_config(1, 1e3, 1);
    config.kept_results = 0;
    PartialAllreduce ar(comm, std::move(config));
    return nlohmann::json();
  });
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("kept_results"), std::string::npos) << bad.error;
}

// Fig. 8's skew (rank r arrives r ms late, a barrier between iterations): the first rank activates every version,
// later ranks find it started and activate nothing.
TEST(PartialAllreduce, LateRanksDoNotActivateAndMajorityWaitsForItsInitiator) {
  constexpr int kP = 8;
  constexpr std::int64_t kVersions = 6;
  StragglerSpec skew;
  skew.kind = "linear_skew";
  skew.step_s = 1e-3;
  for (Kind kind : {Kind::Solo, Kind::Majority}) {
    SCOPED_TRACE(name_of(kind));
    const auto result = run_simulated(
        star(kP),
        [&](Comm& comm) {
          PartialAllreduce ar(comm, config_for(kind, kP, kVersions, 1, 5));
          nlohmann::json fresh = nlohmann::json::array();
          for (std::int64_t t = 0; t < kVersions; ++t) {
            comm.compute(t, {});
            const PartialResult r = ar.call({1.0f});
            fresh.push_back(r.fresh);
            barrier(comm, Group::world(kP));  // everyone starts the next iteration together
          }
          ar.finish();
          const auto st = ar.stats();
          return nlohmann::json{{"internal", st.internal_activations}, {"fresh", fresh}};
        },
        constant_compute(0.0, kP, skew));
    ASSERT_TRUE(result.ok) << result.error;
    for (int rank = 0; rank < kP; ++rank) {
      const auto& r = result.per_rank[static_cast<std::size_t>(rank)];
      if (kind == Kind::Solo) {
        EXPECT_EQ(r["internal"].get<int>(), rank == 0 ? kVersions : 0) << "rank " << rank;
        for (const auto& f : r["fresh"]) EXPECT_EQ(f.get<std::vector<int>>(), members({0}));
      } else {
        for (std::int64_t t = 0; t < kVersions; ++t) {
          // The initiator and every rank that arrived before it contribute fresh data: ranks 0..initiator.
          const int initiator = PartialAllreduce::majority_initiator(5, t, kP);
          std::vector<int> expected(static_cast<std::size_t>(initiator + 1));
          std::iota(expected.begin(), expected.end(), 0);
          EXPECT_EQ(r["fresh"][static_cast<std::size_t>(t)].get<std::vector<int>>(), expected) << "version " << t;
        }
      }
    }
  }
}

// ----------------------------------------------------------------------------------- skew: safety, liveness -----

// Under random skew and stragglers several versions behind: every rank executes every version exactly once and in
// order, the run ends (no deadlock, no agent left), all ranks see the same sum per version, and in accumulate mode
// nothing is lost or counted twice (the sum over versions equals everything deposited minus what is still waiting
// in the send buffers).
TEST(PartialAllreduce, UnderSkewNoVersionRunsTwiceEveryRankFinishesAndNothingIsLost) {
  constexpr std::int64_t kVersions = 6;
  for (Kind kind : {Kind::Solo, Kind::Majority, Kind::Group}) {
    for (int p : {2, 4, 8, 32, 64}) {
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        SCOPED_TRACE(std::string(name_of(kind)) + " P=" + std::to_string(p) + " seed " + std::to_string(seed));
        // Exchanges of 1 MB take 0.1 ms on the star; arrivals spread over 0..2 ms, and one or two ranks per step are
        // 5 ms late, so activations race each other and some ranks fall several versions behind.
        const auto compute = skewed_compute(p, 2e-3, seed, p >= 8 ? 2 : 1, 5e-3);
        const auto result = run_simulated(
            star(p),
            [&](Comm& comm) {
              auto config = config_for(kind, p, kVersions, 1, seed);
              // Odd seeds use Rabenseifner's schedule: its phases interleave differently with the activations.
              if (seed % 2 == 1) config.schedule = PartialSchedule::Rabenseifner;
              nlohmann::json sums = nlohmann::json::object();
              config.on_version = [&sums](const PartialResult& r) {
                sums[std::to_string(r.version)] = {r.sum[0], r.group.front()};
              };
              PartialAllreduce ar(comm, std::move(config));
              double deposited = 0;
              for (std::int64_t t = 0; t < kVersions; ++t) {
                comm.compute(t, {});
                deposited += 1.0 + comm.rank();
                ar.call({static_cast<float>(1 + comm.rank())});
              }
              ar.finish();
              const auto st = ar.stats();
              return nlohmann::json{{"executed", st.executed_versions},
                                    {"sums", sums},
                                    {"deposited", deposited},
                                    {"left", ar.send_buffer()[0]}};
            },
            compute);
        ASSERT_TRUE(result.ok) << result.error;
        std::vector<std::int64_t> in_order(kVersions);
        std::iota(in_order.begin(), in_order.end(), 0);
        for (const auto& r : result.per_rank) EXPECT_EQ(r["executed"].get<std::vector<std::int64_t>>(), in_order);
        // Every member of a reduction group holds the same sum.
        for (int rank = 0; rank < p; ++rank)
          for (const auto& [v, s] : result.per_rank[static_cast<std::size_t>(rank)]["sums"].items()) {
            const int leader = s[1].get<int>();
            EXPECT_EQ(s[0].get<float>(), result.per_rank[static_cast<std::size_t>(leader)]["sums"][v][0].get<float>());
          }
        if (kind != Kind::Group) {
          double total = 0, deposited = 0, left = 0;
          for (const auto& [v, s] : result.per_rank[0]["sums"].items()) total += s[0].get<double>();
          for (const auto& r : result.per_rank) {
            deposited += r["deposited"].get<double>();
            left += r["left"].get<double>();
          }
          EXPECT_EQ(total, deposited - left);
        }
      }
    }
  }
}

TEST(PartialAllreduce, SimultaneousActivatorsStartEachVersionOnce) {
  // No skew at all: every rank activates every version at the same instant; activations cross each other.
  constexpr int kP = 16;
  const auto result = run_simulated(
      star(kP),
      [](Comm& comm) {
        PartialAllreduce ar(comm, solo_allreduce_config(5, 1e3, 1));
        for (std::int64_t t = 0; t < 5; ++t) {
          comm.compute(t, {});
          ar.call({1.0f});
        }
        ar.finish();
        const auto st = ar.stats();
        return nlohmann::json{{"executed", st.executed}, {"internal", st.internal_activations},
                              {"duplicates", st.duplicate_activations}};
      },
      constant_compute(0.01, kP));
  ASSERT_TRUE(result.ok) << result.error;
  std::int64_t internal = 0, duplicates = 0;
  for (const auto& r : result.per_rank) {
    EXPECT_EQ(r["executed"].get<int>(), 5);
    internal += r["internal"].get<std::int64_t>();
    duplicates += r["duplicates"].get<std::int64_t>();
  }
  EXPECT_GT(internal, 5);    // several activators per version, each version still executed once per rank
  EXPECT_GT(duplicates, 0);  // their crossing activations are received and dropped, not left unmatched
}

TEST(PartialAllreduce, MoreCallsThanVersionsIsAnError) {
  const auto result = run_simulated(star(1), [](Comm& comm) {
    PartialAllreduce ar(comm, solo_allreduce_config(1, 1e3, 1));
    ar.call({1.0f});
    ar.call({1.0f});
    return nlohmann::json();
  });
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("versions"), std::string::npos) << result.error;
}

}  // namespace quorum

namespace quorum {

namespace {

// Keeps the samples of the active-process metrics, in order.
class ActiveSamples final : public StepObserver {
 public:
  void step_done(const StepRecord&) override {}
  void sample(int rank, const std::string& metric, double value) override {
    if (metric.find("active_processes") != std::string::npos) samples.push_back({rank, value});
  }
  void histogram(int, const std::string&, std::int64_t) override {}
  void table_row(const std::string&, const std::vector<std::pair<std::string, double>>&) override {}
  bool tracing() const override { return false; }
  void span(const TraceSpan&) override {}
  std::vector<std::pair<int, double>> samples;
};

}  // namespace

// result_ranks off (what eager-SGD and WAGMA-SGD run with) leaves the sums and the active-process counts as they
// were, counted from the fresh set instead of a list, and only drops the lists from the results; P = 6 folds two
// ranks in and out of the butterfly.
TEST(PartialAllreduce, ResultsWithoutRankListsKeepTheSumsAndActiveCounts) {
  for (Kind kind : {Kind::Solo, Kind::Majority, Kind::Group}) {
    for (int p : {6, 8}) {
      if (kind == Kind::Group && p == 6) continue;  // groups need a power of two
      SCOPED_TRACE(std::string(name_of(kind)) + " P=" + std::to_string(p));
      const auto run = [&](bool result_ranks) {
        const auto result = run_simulated(
            star(p),
            [&](Comm& comm) {
              ActiveSamples observer;
              auto config = config_for(kind, p, 6, 2, 3);
              config.result_ranks = result_ranks;
              config.observer = &observer;
              PartialAllreduce ar(comm, std::move(config));
              nlohmann::json calls = nlohmann::json::array();
              for (std::int64_t t = 0; t < 6; ++t) {
                comm.compute(t, {});
                const PartialResult r = ar.call(data_of(comm.rank(), t, 2));
                calls.push_back({r.version, r.sum, r.group.size(), r.fresh.size()});
              }
              ar.finish();
              return nlohmann::json{{"calls", calls}, {"active", observer.samples}};
            },
            skewed_compute(p, 2e-3, 5, 2, 5e-3));
        EXPECT_TRUE(result.ok) << result.error;
        return result.per_rank;
      };
      const auto with_lists = run(true);
      const auto without = run(false);
      ASSERT_EQ(with_lists.size(), without.size());
      bool some_stale = false;
      for (std::size_t rank = 0; rank < with_lists.size(); ++rank) {
        EXPECT_EQ(with_lists[rank]["active"], without[rank]["active"]);
        for (std::size_t t = 0; t < 6; ++t) {
          const auto& a = with_lists[rank]["calls"][t];
          const auto& b = without[rank]["calls"][t];
          EXPECT_EQ(a[0], b[0]);
          EXPECT_EQ(a[1], b[1]);
          EXPECT_GT(a[2].get<std::size_t>(), 0u);
          EXPECT_EQ(b[2].get<std::size_t>(), 0u);
          EXPECT_EQ(b[3].get<std::size_t>(), 0u);
          some_stale = some_stale || a[3].get<std::size_t>() < a[2].get<std::size_t>();
        }
      }
      EXPECT_TRUE(some_stale) << "the stragglers left every contribution fresh: the counts were not exercised";
    }
  }
}

// Every butterfly message used to be a fresh vector and every received one was freed. Now the received vectors carry
// the next sends: over several versions every send but a rank's very first reuses one (a folded-out rank of P = 6
// receives only after it sends, the fold's partner receives before it sends), and the sums stay exact, for both
// schedules and with the fold.
TEST(PartialReduction, ReceivedVectorsCarryTheNextSendsAndTheSumsStayExact) {
  constexpr int kVersions = 3, kValues = 40;
  for (const PartialSchedule schedule : {PartialSchedule::RecursiveDoubling, PartialSchedule::Rabenseifner}) {
    for (const int p : {8, 6}) {
      SCOPED_TRACE(std::string(to_string(schedule)) + ", P = " + std::to_string(p));
      const auto result = run_simulated(star(p), [&](Comm& comm) {
        PartialReduction reduction(comm, schedule, 4.0 * kValues, [](std::int64_t v, int phase) {
          return tags::make(Channel::PartialCollective, static_cast<int>(v) * kPartialPhasesPerVersion + phase);
        });
        bool exact = true;
        for (int v = 0; v < kVersions; ++v) {
          PartialSum sum{std::vector<float>(kValues), FreshRanks(p, true)};
          for (int i = 0; i < kValues; ++i) sum.data[static_cast<std::size_t>(i)] = static_cast<float>(comm.rank() * 100 + v * 10 + i);
          sum.fresh.insert(comm.rank());
          reduction.over_world(v, sum);
          for (int i = 0; i < kValues; ++i)  // sum over ranks r of r * 100 + v * 10 + i
            exact = exact && sum.data[static_cast<std::size_t>(i)] == static_cast<float>(100 * p * (p - 1) / 2 + p * (v * 10 + i));
          exact = exact && sum.fresh.count() == p;
        }
        return nlohmann::json{{"exact", exact}, {"recycled", reduction.recycled_sends()}};
      });
      ASSERT_TRUE(result.ok) << result.error;
      const PowerOfTwoFold fold0(p, 0);
      const int dims = std::countr_zero(static_cast<unsigned>(fold0.p2));
      const int butterfly_sends = schedule == PartialSchedule::RecursiveDoubling ? dims : 2 * dims;
      for (int r = 0; r < p; ++r) {
        const PowerOfTwoFold fold(p, r);
        const auto& got = result.per_rank[static_cast<std::size_t>(r)];
        EXPECT_TRUE(got["exact"].get<bool>()) << "rank " << r;
        // Sends per version, and whether the rank receives (the fold's partner) before its first send.
        const bool folds = r < 2 * fold.extra;
        const int sends = folds && fold.virtual_index < 0 ? 1 : butterfly_sends + (folds ? 1 : 0);
        const int expected = kVersions * sends - (folds && fold.virtual_index >= 0 ? 0 : 1);
        EXPECT_EQ(got["recycled"].get<int>(), expected) << "rank " << r;
      }
    }
  }
}

// A reduction message's ints are the version, then the sender's fresh ranks: united into the receiver's disjoint set,
// listed (bits over several words) or counted (one word, the count).
TEST(FreshRanks, MessageIntsCarryTheVersionAndTheSetToTheReceiver) {
  FreshRanks sent(130, true);
  for (const int r : {0, 64, 129}) sent.insert(r);
  const std::vector<std::int64_t> ints = sent.message_ints(7);
  ASSERT_EQ(ints.size(), 4u);  // the version and three words of 64 ranks
  EXPECT_EQ(ints[0], 7);
  FreshRanks received(130, true);
  received.insert(5);
  received.unite(ints);
  EXPECT_EQ(received.count(), 4);
  for (const int r : {0, 5, 64, 129}) EXPECT_TRUE(received.contains(r)) << "rank " << r;
  for (const int r : {1, 63, 65, 128}) EXPECT_FALSE(received.contains(r)) << "rank " << r;

  FreshRanks counted(130, false);
  counted.insert(3);
  counted.insert(4);
  EXPECT_EQ(counted.message_ints(2), (std::vector<std::int64_t>{2, 2}));
  FreshRanks counted_received(130, false);
  counted_received.insert(9);
  counted_received.unite(counted.message_ints(2));
  EXPECT_EQ(counted_received.count(), 3);
}

}  // namespace quorum
