// Prague: the static schedule, the Group Generator's rules (lock vector, pending queue, group buffer, division,
// slowdown filter), and simulated runs: the mean is preserved, overlapping groups never run at the same time, and
// no mode deadlocks under severe slowdown.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "algorithms/prague/GroupGenerator.hpp"
#include "algorithms/prague/StaticSchedule.hpp"
#include "kernels/random/SeedStream.hpp"
#include "sim/model/Scenario.hpp"
#include "tests/support/AlgorithmHarness.hpp"
#include "tests/support/ScenarioHarness.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::AlgorithmRun;
using testing::run_algorithm;
using testing::simulate_scenario;
using testing::star;

namespace {

PlatformConfig maverick(int nodes, int gpus = 4) {
  Maverick2Config c;
  c.nodes = nodes;
  c.gpus_per_node = gpus;
  return c;
}

std::vector<double> mean_of(const std::vector<std::vector<float>>& models) {
  std::vector<double> m(models.front().size(), 0.0);
  for (const auto& x : models)
    for (std::size_t i = 0; i < x.size(); ++i) m[i] += x[i] / static_cast<double>(models.size());
  return m;
}

// Groups (by id) as they ran: each member's P-Reduce interval, from the spans.
struct RanGroup {
  std::map<int, std::pair<double, double>> at;  // rank -> (start, end)
  double first_start() const {
    double t = 1e300;
    for (const auto& [r, se] : at) t = std::min(t, se.first);
    return t;
  }
};
std::map<std::string, RanGroup> groups_from_spans(const std::vector<nlohmann::json>& spans) {
  std::map<std::string, RanGroup> groups;
  for (const auto& s : spans)
    if (s["category"] == "preduce")
      groups[s["name"].get<std::string>()].at[s["rank"].get<int>()] = {s["start"].get<double>(), s["end"].get<double>()};
  return groups;
}

}  // namespace

TEST(PragueStaticSchedule, IsConflictFreeAndConsistentForEveryStepOfItsPeriod) {
  for (int per_node : {1, 2, 3, 4, 8})
    for (int nodes = 1; nodes <= 9; ++nodes) {
      const int p = per_node * nodes;
      const int period = static_schedule_period(per_node);
      for (std::int64_t step = 0; step < 2 * period; ++step) {
        std::vector<int> owner(static_cast<std::size_t>(p), -1);
        for (int r = 0; r < p; ++r) {
          const auto g = static_group(r, step, p, per_node);
          ASSERT_TRUE(std::is_sorted(g.begin(), g.end()));
          ASSERT_NE(std::find(g.begin(), g.end(), r), g.end());
          for (int q : g) {
            // Every member computes the very same group: the groups of a step are disjoint (conflict-free).
            ASSERT_EQ(static_group(q, step, p, per_node), g)
                << "P=" << p << " per node " << per_node << " step " << step << " ranks " << r << "," << q;
            ASSERT_TRUE(owner[static_cast<std::size_t>(q)] == -1 || owner[static_cast<std::size_t>(q)] == g.front());
            owner[static_cast<std::size_t>(q)] = g.front();
          }
        }
        // Periodic.
        for (int r = 0; r < p; ++r) ASSERT_EQ(static_group(r, step, p, per_node), static_group(r, step + period, p, per_node));
      }
    }
}

TEST(PragueStaticSchedule, ReproducesFigures9And10On16WorkersOf4Nodes) {
  auto g = [](int rank, int step) { return static_group(rank, step, 16, 4); };
  EXPECT_EQ(g(0, 0), (std::vector<int>{0, 4, 8, 12}));  // G1 of row 4k: local worker 0 of every node
  EXPECT_EQ(g(2, 0), (std::vector<int>{2, 3}));
  EXPECT_EQ(g(1, 0), std::vector<int>{1});             // LW1: no sync
  EXPECT_EQ(g(5, 1), (std::vector<int>{4, 5, 6, 7}));  // phase 1: whole node
  EXPECT_EQ(g(1, 2), (std::vector<int>{1, 9}));        // LW1 with LW1 of the opposite node
  EXPECT_EQ(g(0, 2), (std::vector<int>{0, 3}));
  for (int r : {2, 6, 10, 14}) EXPECT_EQ(g(r, 2), std::vector<int>{r});  // "W2, W6, W10, W14 do not participate"
  EXPECT_EQ(g(13, 3), (std::vector<int>{12, 13, 14, 15}));
}

TEST(GroupGenerator, OverlappingGroupsNeverRunTogetherAndEveryGroupCompletes) {
  // Drive the generator with random interleavings of requests, acknowledgements and finishes, as workers would.
  for (const GroupMode mode : {GroupMode::Random, GroupMode::Smart})
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      GroupGeneratorConfig c;
      c.mode = mode;
      c.workers = 4 + static_cast<int>(seed % 9);
      c.ranks_per_node = seed % 2 ? 1 : 2;
      if (c.workers % c.ranks_per_node) ++c.workers;
      c.group_size = 2 + static_cast<int>(seed % 3);
      c.c_thres = 3;
      c.seed = seed;
      GroupGenerator gg(c);
      Rng rng(seed, Stream::Algorithm, 77, 0);
      const int steps = 15;
      const auto n = static_cast<std::size_t>(c.workers);
      std::vector<int> done_steps(n, 0);
      std::vector<bool> requested(n, false), finished(n, false);
      std::vector<std::vector<std::int64_t>> active(n);  // activations received, not yet acknowledged
      std::vector<std::int64_t> own(n, -1);
      std::map<std::int64_t, std::vector<int>> running;  // group -> members still in it
      double now = 0;
      int guard = 0;
      while (!gg.all_released()) {
        ASSERT_LT(++guard, 100000) << "no progress: deadlock";
        now += 1;
        const int w = static_cast<int>(rng.below(n));
        const auto k = static_cast<std::size_t>(w);
        if (!active[k].empty()) {  // run the oldest activation and acknowledge it
          const std::int64_t g = active[k].front();
          active[k].erase(active[k].begin());
          auto& members = running[g];
          members.erase(std::find(members.begin(), members.end(), w));
          if (members.empty()) running.erase(g);
          gg.acknowledge(w, g, now);
          if (g == own[k]) {
            own[k] = -1;
            requested[k] = false;
            ++done_steps[k];
          }
        } else if (!finished[k] && !requested[k] && done_steps[k] < steps) {
          own[k] = gg.request(w, now);
          requested[k] = true;
        } else if (!finished[k] && !requested[k] && done_steps[k] == steps) {
          gg.finish(w);
          finished[k] = true;
        }
        for (const Activation& a : gg.take_activations(now)) {
          // No member may be in another running group.
          for (int m : a.members)
            for (const auto& [g, members] : running)
              ASSERT_EQ(std::find(members.begin(), members.end(), m), members.end())
                  << "worker " << m << " in groups " << g << " and " << a.group << " at once";
          running[a.group] = a.members;
          for (int m : a.members) active[static_cast<std::size_t>(m)].push_back(a.group);
        }
        gg.take_completed();
      }
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(done_steps[i], steps);
      EXPECT_TRUE(running.empty());
    }
}

TEST(GroupGenerator, SmartDivisionFormsDisjointGroupsOfIdleWorkersAndFiltersSlowOnes) {
  GroupGeneratorConfig c;
  c.mode = GroupMode::Smart;
  c.workers = 9;
  c.group_size = 3;
  c.c_thres = 2;
  c.inter_intra = false;
  GroupGenerator gg(c);
  // Worker 0's request divides all nine idle workers into three disjoint groups of three.
  const std::int64_t first = gg.request(0, 0);
  std::set<int> seen;
  for (int w = 0; w < 9; ++w) {
    EXPECT_EQ(gg.buffered(w), w == 0 ? 0u : 1u);
    seen.insert(w);
  }
  ASSERT_NE(gg.group(first), nullptr);
  EXPECT_EQ(gg.group(first)->members.size(), 3u);
  // A buddy's request takes the group already formed for it (Group Buffer), no new division.
  const int buddy = gg.group(first)->members[0] == 0 ? gg.group(first)->members[1] : gg.group(first)->members[0];
  EXPECT_EQ(gg.request(buddy, 1), first);
  // The group starts only when every member has asked (P-Reduce is collective).
  EXPECT_TRUE(gg.take_activations(1).empty());
  const int third = gg.group(first)->members[2] == 0 || gg.group(first)->members[2] == buddy
                        ? gg.group(first)->members[1] : gg.group(first)->members[2];
  gg.request(third, 2);
  const auto started = gg.take_activations(2);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].group, first);

  // Slowdown filter. Four workers, pairs, C_thres = 2: workers 0 and its partner run ahead while the other two
  // lag; once they trail by 2 requests, worker 0's division leaves them out although they are idle.
  GroupGeneratorConfig f = c;
  f.workers = 4;
  f.group_size = 2;
  GroupGenerator gg2(f);
  auto run_group = [&](std::int64_t id, double now) {
    for (const Activation& a : gg2.take_activations(now)) {
      EXPECT_EQ(a.group, id);
      for (int m : a.members) gg2.acknowledge(m, a.group, now);
    }
  };
  const std::int64_t p1 = gg2.request(0, 0);  // divides {0,1,2,3} into two pairs
  const int partner = gg2.group(p1)->members[0] == 0 ? gg2.group(p1)->members[1] : gg2.group(p1)->members[0];
  std::vector<int> laggards;
  for (int w = 1; w < 4; ++w)
    if (w != partner) laggards.push_back(w);
  EXPECT_EQ(gg2.request(partner, 0), p1);
  run_group(p1, 0);
  for (int round = 1; round <= 2; ++round) {  // the laggards hold their first pair, so only 0 and partner are idle
    const std::int64_t g = gg2.request(0, round);
    EXPECT_EQ(gg2.group(g)->members, (std::vector<int>{0, partner}));
    EXPECT_EQ(gg2.request(partner, round), g);
    run_group(g, round);
  }
  const std::int64_t p2 = gg2.request(laggards[0], 3);
  EXPECT_EQ(gg2.request(laggards[1], 3), p2);
  run_group(p2, 3);
  // Counters: 3, 3 for the fast pair, 1, 1 for the laggards, all idle. Worker 0 asks: 4 - 1 >= C_thres.
  const std::int64_t g = gg2.request(0, 4);
  EXPECT_EQ(gg2.group(g)->members, (std::vector<int>{0, partner}));
  EXPECT_EQ(gg2.buffered(laggards[0]), 0u);
  EXPECT_EQ(gg2.buffered(laggards[1]), 0u);
  // A laggard's own division may still take in a fast idle worker (the paper's Fig. 13 case).
  const std::int64_t h = gg2.request(laggards[0], 5);
  EXPECT_GE(gg2.group(h)->members.size(), 2u);
}

TEST(Prague, EveryModeAveragesAndPreservesTheMean) {
  for (const char* mode : {"random", "smart", "static"}) {
    SCOPED_TRACE(mode);
    AlgorithmRun run{"prague", {{"mode", mode}}, maverick(2), 12};
    const auto r = run_algorithm(run);
    ASSERT_TRUE(r.ok) << r.error;
    const auto before = mean_of(r.initial), after = mean_of(r.final);
    for (std::size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], 2e-5);
    EXPECT_NE(r.final[0], r.initial[0]);
  }
}

TEST(Prague, OverlappingGroupsNeverRunConcurrently) {
  for (const char* mode : {"random", "smart"})
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(std::string(mode) + " seed " + std::to_string(seed));
      AlgorithmRun run{"prague", {{"mode", mode}}, seed == 2 ? star(10) : maverick(3), 15};
      run.seed = seed;
      run.imbalance.kind = "random_delay";
      run.imbalance.ranks = 2;
      run.imbalance.delay_s = 0.02;
      const auto r = run_algorithm(run);
      ASSERT_TRUE(r.ok) << r.error;
      const auto groups = groups_from_spans(r.spans);
      ASSERT_GT(groups.size(), 20u);
      // Locks are per worker (a member releases its bit when its part is done), so the property is: when two
      // groups share a worker, no member starts the later group before that worker has finished the earlier one.
      std::size_t overlapping_pairs = 0;
      for (auto a = groups.begin(); a != groups.end(); ++a)
        for (auto b = std::next(a); b != groups.end(); ++b)
          for (const auto& [rank, span_a] : a->second.at) {
            const auto it = b->second.at.find(rank);
            if (it == b->second.at.end()) continue;
            ++overlapping_pairs;
            const bool a_first = span_a.second <= it->second.first;
            const RanGroup& later = a_first ? b->second : a->second;
            const double shared_done = a_first ? span_a.second : it->second.second;
            EXPECT_TRUE(a_first || it->second.second <= span_a.first)
                << a->first << " and " << b->first << " overlap at rank " << rank;
            EXPECT_GE(later.first_start(), shared_done)
                << (a_first ? b->first : a->first) << " started before rank " << rank << " left the other group";
          }
      EXPECT_GT(overlapping_pairs, 0u);
      // The generator's table has one row per group, every one completed.
      std::size_t rows = 0;
      for (const auto& row : r.rows)
        if (row["table"] == "prague_groups") {
          ++rows;
          EXPECT_GE(row["row"]["done_s"].get<double>(), row["row"]["activated_s"].get<double>());
        }
      EXPECT_GE(rows, groups.size());
    }
}

TEST(Prague, FinishesWithoutDeadlockUnderSevereSlowdownForManySeeds) {
  for (const char* mode : {"random", "smart", "static"})
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      SCOPED_TRACE(std::string(mode) + " seed " + std::to_string(seed));
      const bool nodes = seed % 2 == 0;
      nlohmann::json s = {{"name", "prague"},
                          {"seed", seed},
                          {"platform", nodes ? nlohmann::json{{"name", "maverick2"}, {"nodes", 2 + seed % 3}}
                                             : nlohmann::json{{"name", "piz_daint"}, {"nodes", 3 + seed}}},
                          {"workload", {{"profile", "vgg16_cifar10_1080ti"}, {"iterations", 12}}},
                          {"imbalance", seed % 4 < 2 ? nlohmann::json{{"kind", "slow_worker"}, {"ranks", 2}, {"factor", 100}}
                                                     : nlohmann::json{{"kind", "distribution"}, {"probability", 0.5},
                                                                      {"distribution", {{"kind", "exponential"}, {"mean_s", 0.2}}}}},
                          {"algorithm", {{"name", "prague"}, {"mode", mode}, {"group_size", 2 + seed % 3},
                                         {"generator_rank", seed % 3}, {"request_at", seed % 3 ? "step_start" : "sync_point"}}},
                          {"output", {{"progress", false}}}};
      const auto r = simulate_scenario(s);
      ASSERT_TRUE(r.ok) << r.error;
    }
}

TEST(Prague, BadParametersAreRefusedNamingTheField) {
  nlohmann::json s = {{"name", "prague"},
                      {"platform", {{"name", "piz_daint"}, {"nodes", 4}}},
                      {"workload", {{"profile", "vgg16_cifar10_1080ti"}, {"iterations", 2}}},
                      {"algorithm", {{"name", "prague"}, {"generator_rank", 4}}}};
  try {
    parse_scenario(s, "");
    FAIL() << "generator_rank 4 of 4 ranks was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field(), "algorithm.generator_rank");
  }
  s["algorithm"] = {{"name", "prague"}, {"mode", "fancy"}};
  try {
    parse_scenario(s, "");
    FAIL() << "mode fancy was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field(), "algorithm.mode");
  }
}

}  // namespace quorum
