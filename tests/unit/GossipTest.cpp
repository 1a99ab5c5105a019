// D-PSGD, SGP and AD-PSGD: their graphs, that every averaging preserves the mean (push-sum: the weighted sum), the
// bipartite rule of AD-PSGD, no deadlock under severe slowdown, and the consensus distance they report.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>

#include "algorithms/gossip/BipartiteRing.hpp"
#include "algorithms/gossip/DPsgd.hpp"
#include "algorithms/gossip/ExponentialGraph.hpp"
#include "algorithms/gossip/GossipTags.hpp"
#include "algorithms/gossip/ModelExchange.hpp"
#include "algorithms/gossip/PushSum.hpp"
#include "sim/model/Scenario.hpp"
#include "tests/support/AlgorithmHarness.hpp"
#include "tests/support/ScenarioHarness.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::AlgorithmRun;
using testing::run_algorithm;
using testing::run_simulated;
using testing::simulate_scenario;
using testing::star;

namespace {

std::vector<double> mean_of(const std::vector<std::vector<float>>& models) {
  std::vector<double> m(models.front().size(), 0.0);
  for (const auto& x : models)
    for (std::size_t i = 0; i < x.size(); ++i) m[i] += x[i];
  for (auto& v : m) v /= static_cast<double>(models.size());
  return m;
}

double consensus(const std::vector<std::vector<float>>& models) {
  const auto m = mean_of(models);
  double d = 0;
  for (const auto& x : models)
    for (std::size_t i = 0; i < x.size(); ++i) d += (x[i] - m[i]) * (x[i] - m[i]);
  return d / static_cast<double>(models.size());
}

// The averaging changed the models (they moved towards each other) but not their mean.
void expect_mean_preserved(const testing::AlgorithmRunResult& r, double tolerance = 2e-5) {
  ASSERT_TRUE(r.ok) << r.error;
  const auto before = mean_of(r.initial), after = mean_of(r.final);
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], tolerance) << "coordinate " << i;
  EXPECT_LT(consensus(r.final), 0.5 * consensus(r.initial));
}

StragglerSpec slow_worker(double factor, int ranks = 1) {
  StragglerSpec s;
  s.kind = "slow_worker";
  s.ranks = ranks;
  s.factor = factor;
  return s;
}

// Heavy-tailed random delays on every rank and step: many different interleavings per seed.
StragglerSpec random_heavy_delays() {
  StragglerSpec s;
  s.kind = "distribution";
  s.distribution.kind = Distribution::Kind::Exponential;
  s.distribution.value = 0.05;
  s.probability = 0.5;
  return s;
}

nlohmann::json timing_scenario(const nlohmann::json& algorithm, int nodes, std::uint64_t seed,
                               const nlohmann::json& imbalance) {
  return {{"name", "gossip"},
          {"seed", seed},
          {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
          {"workload", {{"profile", "resnet50_p100"}, {"iterations", 12}, {"compute", {{"kind", "constant"}, {"seconds", 0.01}}}}},
          {"imbalance", imbalance},
          {"algorithm", algorithm},
          {"output", {{"progress", false}}}};
}

}  // namespace

TEST(ExponentialGraph, InAndOutPeersMatchAndMixingIsDoublyStochastic) {
  for (int p = 1; p <= 33; ++p)
    for (int m : {1, 2, 4}) {
      const DirectedExponentialGraph g(p, m);
      for (std::int64_t step = 0; step < 12; ++step) {
        std::vector<std::vector<double>> w(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(p), 0));
        for (int r = 0; r < p; ++r) {
          const auto out = g.out_peers(r, step);
          ASSERT_EQ(std::set<int>(out.begin(), out.end()).size(), out.size());
          ASSERT_LE(out.size(), static_cast<std::size_t>(m));
          ASSERT_EQ(out.size(), g.in_peers(r, step).size());
          const double share = 1.0 / static_cast<double>(out.size() + 1);
          w[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] += share;
          for (int q : out) {
            ASSERT_NE(q, r);
            const auto in = g.in_peers(q, step);
            ASSERT_NE(std::find(in.begin(), in.end(), r), in.end()) << "P=" << p << " m=" << m << " step " << step;
            w[static_cast<std::size_t>(q)][static_cast<std::size_t>(r)] += share;
          }
        }
        for (int i = 0; i < p; ++i) {
          double row = 0, col = 0;
          for (int j = 0; j < p; ++j) {
            row += w[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
            col += w[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)];
          }
          ASSERT_NEAR(row, 1.0, 1e-12);
          ASSERT_NEAR(col, 1.0, 1e-12);
        }
      }
    }
  // P = 16, one peer: 1, 2, 4, 8 hops in turn (SGP's time-varying exponential graph).
  const DirectedExponentialGraph g(16, 1);
  EXPECT_EQ(g.out_peers(3, 0), std::vector<int>{4});
  EXPECT_EQ(g.out_peers(3, 1), std::vector<int>{5});
  EXPECT_EQ(g.out_peers(3, 3), std::vector<int>{11});
  EXPECT_EQ(g.out_peers(3, 4), std::vector<int>{4});
  EXPECT_EQ(DirectedExponentialGraph(16, 2).out_peers(0, 1), (std::vector<int>{4, 8}));
}

TEST(BipartiteRing, EdgesJoinActiveAndPassiveRanksAndAreSymmetric) {
  for (int p = 2; p <= 64; p += 2)
    for (const char* hops : {"ring", "exponential", "1,3"}) {
      if (std::string(hops) == "1,3" && p <= 3) continue;
      const BipartiteRing g(hops, p);
      for (int r = 0; r < p; ++r)
        for (int q : g.neighbours(r)) {
          ASSERT_NE(BipartiteRing::is_active(r), BipartiteRing::is_active(q)) << hops << " P=" << p;
          const auto back = g.neighbours(q);
          ASSERT_NE(std::find(back.begin(), back.end(), r), back.end());
        }
    }
  EXPECT_EQ(BipartiteRing("exponential", 16).distances(), (std::vector<int>{1, 3, 5, 9}));
  EXPECT_EQ(BipartiteRing("ring", 8).neighbours(0), (std::vector<int>{1, 7}));
}

TEST(BipartiteRing, NonBipartiteRequestsAreRefusedNamingTheField) {
  EXPECT_NE(BipartiteRing::check("1,2", 8).find("even"), std::string::npos);
  EXPECT_NE(BipartiteRing::check("ring", 7).find("odd length"), std::string::npos);
  EXPECT_NE(BipartiteRing::check("1,9", 8).find("does not fit"), std::string::npos);
  EXPECT_NE(BipartiteRing::check("one", 8).find("expected"), std::string::npos);
  EXPECT_EQ(BipartiteRing::check("1,3,5", 8), "");
  // Through the scenario layer: the error names algorithm.hops.
  nlohmann::json s = timing_scenario({{"name", "adpsgd"}, {"hops", "1,2"}}, 8, 1, {{"kind", "none"}});
  try {
    parse_scenario(s, "");
    FAIL() << "an even hop distance was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field(), "algorithm.hops");
  }
  s = timing_scenario({{"name", "adpsgd"}}, 7, 1, {{"kind", "none"}});
  EXPECT_THROW(parse_scenario(s, ""), ScenarioError);
}

TEST(Dpsgd, EveryStepAveragesWithTheTwoRingNeighbours) {
  EXPECT_EQ(DPsgd::neighbours(0, 5), (std::vector<int>{1, 4}));
  EXPECT_EQ(DPsgd::neighbours(1, 2), std::vector<int>{0});
  EXPECT_TRUE(DPsgd::neighbours(0, 1).empty());
  // One step with lr 0 is exactly x <- W x with weights 1/3.
  AlgorithmRun run{"dpsgd", {}, star(5), 1};
  const auto r = run_algorithm(run);
  ASSERT_TRUE(r.ok) << r.error;
  for (int i = 0; i < 5; ++i)
    for (std::size_t k = 0; k < r.final[0].size(); ++k) {
      const auto x = [&](int j) { return r.initial[static_cast<std::size_t>((j + 5) % 5)][k]; };
      EXPECT_NEAR(r.final[static_cast<std::size_t>(i)][k], (x(i - 1) + x(i) + x(i + 1)) / 3.0f, 1e-5);
    }
}

TEST(Dpsgd, OverlapChangesOnlyTheTiming) {
  // Same models with and without overlapping the exchange with the computation; under delays the overlapped variant
  // absorbs a neighbour's delay that is shorter than a step, so it is faster.
  auto scenario = [](bool overlap) {
    return nlohmann::json{{"name", "dpsgd"},
                          {"seed", 9},
                          {"platform", {{"name", "piz_daint"}, {"nodes", 8}}},
                          {"workload", {{"profile", "hyperplane"}, {"iterations", 20}, {"compute", {{"kind", "constant"}, {"seconds", 0.2}}}}},
                          {"imbalance", {{"kind", "random_delay"}, {"ranks", 1}, {"delay_s", 0.1}}},
                          {"algorithm", {{"name", "dpsgd"}, {"overlap", overlap}}},
                          {"math", {{"model", "hyperplane"}, {"batch", 16}, {"dim", 32}, {"train_size", 1024}, {"test_size", 128}, {"lr", 0.05}}},
                          {"output", {{"progress", false}}}};
  };
  const auto plain = simulate_scenario(scenario(false)), overlapped = simulate_scenario(scenario(true));
  ASSERT_TRUE(plain.ok) << plain.error;
  ASSERT_TRUE(overlapped.ok) << overlapped.error;
  EXPECT_EQ(plain.final_params, overlapped.final_params);
  EXPECT_GT(overlapped.summary["throughput_steps_per_s"].get<double>(),
            1.1 * plain.summary["throughput_steps_per_s"].get<double>());
}

TEST(Gossip, EveryAveragingPreservesTheMeanOfTheModels) {
  expect_mean_preserved(run_algorithm({"dpsgd", {}, star(6), 15}));
  expect_mean_preserved(run_algorithm({"dpsgd", {}, star(2), 5}));
  expect_mean_preserved(run_algorithm({"sgp", {{"neighbors", 1}}, star(8), 15}));
  expect_mean_preserved(run_algorithm({"sgp", {{"neighbors", 2}}, star(7), 15}));
  expect_mean_preserved(run_algorithm({"sgp", {{"neighbors", 4}}, star(16), 10}));
  for (const char* hops : {"ring", "exponential"}) {
    AlgorithmRun run{"adpsgd", {{"hops", hops}}, star(8), 20};
    run.imbalance = slow_worker(3.0, 2);
    expect_mean_preserved(run_algorithm(run));
  }
}

TEST(Sgp, PushSumPreservesTheWeightedSumWithAndWithoutOverlap) {
  // Raw push-sum rounds on the exponential graph, rounds kept in flight for a step as in the overlap variant: the
  // sum of numerators and weights over the ranks never changes, and the de-biased models approach the average.
  for (const bool overlap : {false, true})
    for (const int m : {1, 2}) {
      SCOPED_TRACE(std::string(overlap ? "overlap" : "no overlap") + ", m=" + std::to_string(m));
      const int p = 6;
      const auto result = run_simulated(star(p), [&](Comm& comm) {
        const DirectedExponentialGraph g(p, m);
        PushSum state({static_cast<float>(comm.rank() * comm.rank()), static_cast<float>(-comm.rank())});
        ModelExchange a(comm, gossip_tags::kSgpPush), b(comm, gossip_tags::kSgpPush);
        ModelExchange* rounds[2] = {&a, &b};
        const int steps = 30;
        for (int k = 0; k < steps; ++k) {
          const auto out = g.out_peers(comm.rank(), k);
          rounds[k % 2]->start(out, g.in_peers(comm.rank(), k), state.push(static_cast<int>(out.size()), k), 8);
          comm.sleep_for(0.001 * (1 + (comm.rank() * 7 + k) % 3));  // unequal ranks
          ModelExchange* done = overlap ? (k > 0 ? rounds[(k - 1) % 2] : nullptr) : rounds[k % 2];
          if (done != nullptr)
            for (const Message& msg : done->finish()) state.absorb(msg.payload);
        }
        if (overlap)
          for (const Message& msg : rounds[(steps - 1) % 2]->finish()) state.absorb(msg.payload);
        std::vector<float> z;
        state.debiased(z);
        return nlohmann::json{{"x", state.numerator()}, {"w", state.weight()}, {"z", z}};
      });
      ASSERT_TRUE(result.ok) << result.error;
      double x0 = 0, x1 = 0, w = 0;
      for (const auto& r : result.per_rank) {
        x0 += r["x"][0].get<double>();
        x1 += r["x"][1].get<double>();
        w += r["w"].get<double>();
      }
      EXPECT_NEAR(x0, 0 + 1 + 4 + 9 + 16 + 25, 1e-4);
      EXPECT_NEAR(x1, -15, 1e-4);
      EXPECT_NEAR(w, p, 1e-12);
      for (const auto& r : result.per_rank) {
        EXPECT_NEAR(r["z"][0].get<double>(), 55.0 / 6, 1e-2);
        EXPECT_NEAR(r["z"][1].get<double>(), -2.5, 1e-2);
      }
    }
}

TEST(Sgp, OverlapVariantDrainsTheLastRoundAndKeepsTheMean) {
  // With overlap the weights leave 1; the run still ends with the mass of every push absorbed, so on a regular
  // graph the de-biased models keep the mean once the last round is drained... approximately: x_i / w_i averages
  // differently from x_i when the w_i differ, so compare with the push-sum average sum(x) / sum(w) instead.
  AlgorithmRun run{"sgp", {{"neighbors", 2}, {"overlap", true}}, star(8), 20};
  const auto r = run_algorithm(run);
  ASSERT_TRUE(r.ok) << r.error;
  const auto before = mean_of(r.initial), after = mean_of(r.final);
  // After 20 steps the models nearly agree, so their plain mean is close to the preserved push-sum average.
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-3);
  EXPECT_LT(consensus(r.final), 1e-3 * consensus(r.initial));
}

TEST(ModelExchange, RecycledVectorsCarryEachRoundsModelsAndSparesEveryLaterSendAnAllocation) {
  // A ring of 5: every round each rank sends its model to both neighbours and gives the two it received back. From
  // the second round on every send reuses a received vector, and every message still carries its sender's values
  // of that round exactly.
  const int p = 5, rounds = 4, n = 300;
  const auto result = run_simulated(star(p), [&](Comm& comm) {
    const std::vector<int> peers = DPsgd::neighbours(comm.rank(), p);
    ModelExchange exchange(comm, gossip_tags::kDpsgdModel);
    bool exact = true;
    for (int k = 0; k < rounds; ++k) {
      std::vector<float> model(n);
      for (int i = 0; i < n; ++i) model[static_cast<std::size_t>(i)] = static_cast<float>(comm.rank() * 1000 + k * 10 + i);
      exchange.start(peers, peers, Payload{model, {k}}, 4.0 * n);
      std::vector<Message> got = exchange.finish();
      for (std::size_t j = 0; j < got.size(); ++j) {
        const int from = peers[j];
        exact = exact && got[j].payload.ints == std::vector<std::int64_t>{k} &&
                static_cast<int>(got[j].payload.values.size()) == n;
        for (int i = 0; exact && i < n; ++i)
          exact = got[j].payload.values[static_cast<std::size_t>(i)] == static_cast<float>(from * 1000 + k * 10 + i);
      }
      exchange.recycle(got);
      exact = exact && got.empty();
    }
    return nlohmann::json{{"exact", exact}, {"recycled", exchange.recycled_sends()}};
  });
  ASSERT_TRUE(result.ok) << result.error;
  for (int r = 0; r < p; ++r) {
    const auto& got = result.per_rank[static_cast<std::size_t>(r)];
    EXPECT_TRUE(got["exact"].get<bool>()) << "rank " << r;
    EXPECT_EQ(got["recycled"].get<std::size_t>(), 2u * (rounds - 1)) << "rank " << r;
  }
}

TEST(AdPsgd, FinishesWithoutDeadlockUnderSevereSlowdownForManySeeds) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const int nodes = seed % 3 == 0 ? 16 : seed % 3 == 1 ? 6 : 4;
    const nlohmann::json imbalance = seed % 2 == 0
        ? nlohmann::json{{"kind", "slow_worker"}, {"ranks", 2}, {"factor", 100}}
        : nlohmann::json{{"kind", "distribution"}, {"probability", 0.5},
                         {"distribution", {{"kind", "exponential"}, {"mean_s", 0.05}}}};
    const auto r = simulate_scenario(timing_scenario({{"name", "adpsgd"}, {"hops", seed % 4 == 0 ? "ring" : "exponential"}},
                                                     nodes, seed, imbalance));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.summary["metrics"]["averaging_partners"]["count"].get<int>(), nodes * 12);
  }
  AlgorithmRun run{"adpsgd", {}, star(10), 15};
  run.imbalance = random_heavy_delays();
  expect_mean_preserved(run_algorithm(run));
}

TEST(AdPsgd, ComputationNeverWaitsAndASlowWorkerDoesNotSlowTheOthers) {
  nlohmann::json s = timing_scenario({{"name", "adpsgd"}}, 8, 5, {{"kind", "slow_worker"}, {"ranks", 1}, {"factor", 10}});
  s["workload"]["iterations"] = 40;
  const auto r = simulate_scenario(s);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.summary["mean_wait_s"].get<double>(), 0.0);
  // Seven ranks at 100 steps/s and one at 10 steps/s: 7.1/8 of the homogeneous rate while all run.
  EXPECT_NEAR(r.summary["aggregate_steps_per_s"].get<double>(), 100.0 * (7 + 0.1) / 8, 3.0);
}

TEST(Gossip, ConsensusDistanceIsReportedAtEvaluationsAndAtTheEnd) {
  auto scenario = [](const char* algorithm) {
    return nlohmann::json{{"name", "consensus"},
                          {"seed", 4},
                          {"platform", {{"name", "piz_daint"}, {"nodes", 6}}},
                          {"workload", {{"profile", "hyperplane"}, {"iterations", 12}, {"compute", {{"kind", "constant"}, {"seconds", 0.1}}}}},
                          {"algorithm", {{"name", algorithm}}},
                          {"math", {{"model", "hyperplane"}, {"batch", 16}, {"dim", 32}, {"train_size", 1024}, {"test_size", 128}, {"lr", 0.05}, {"eval_every", 4}}},
                          {"output", {{"progress", false}}}};
  };
  const auto sync = simulate_scenario(scenario("allreduce"));
  ASSERT_TRUE(sync.ok) << sync.error;
  for (const auto& e : sync.summary["evaluations"]) EXPECT_NEAR(e["consensus_distance"].get<double>(), 0.0, 1e-9);
  const auto gossip = simulate_scenario(scenario("dpsgd"));
  ASSERT_TRUE(gossip.ok) << gossip.error;
  const auto& evals = gossip.summary["evaluations"];
  ASSERT_EQ(evals.size(), 4u);  // initial, after steps 4, 8, 12
  for (std::size_t i = 1; i < evals.size(); ++i) EXPECT_GT(evals[i]["consensus_distance"].get<double>(), 0.0);
  EXPECT_NEAR(gossip.summary["final_consensus_distance"].get<double>(), consensus(gossip.final_params), 1e-9);
}

}  // namespace quorum
