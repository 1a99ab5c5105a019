// Persistent, spatially correlated imbalance end to end: a simulated run with the markov kind, correlated by Piz
// Daint's routers, writes into iterations.csv exactly the delays the scenario's straggler model gives, and the
// episode lengths and the slow fraction read back from the compute times are the configured ones.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "sim/model/Scenario.hpp"
#include "sim/model/Trace.hpp"
#include "tests/support/Cli.hpp"

namespace quorum {

using testing::fresh_path;
using testing::run_cli;

TEST(PersistentImbalance, MarkovEpisodesByRouterAppearInIterationsCsv) {
  constexpr int kNodes = 16, kSteps = 4000, kPerRouter = 4;
  constexpr double kStep = 0.01, kFactor = 3, kMeanSlow = 4, kMeanNormal = 12;
  const nlohmann::json scenario = {
      {"name", "markov-e2e"},
      {"seed", 11},
      {"platform", {{"name", "piz_daint"}, {"nodes", kNodes}}},
      {"workload", {{"profile", "hyperplane"}, {"iterations", kSteps},
                    {"compute", {{"kind", "constant"}, {"seconds", kStep}}}}},
      {"imbalance", {{"kind", "markov"}, {"mean_slow_steps", kMeanSlow}, {"mean_normal_steps", kMeanNormal},
                     {"factor", kFactor}, {"correlate", "router"}}},
      {"algorithm", {{"name", "local_sgd"}, {"tau", 50}}},
      {"output", {{"progress", false}}}};
  const std::string dir = fresh_path("quorum-markov-e2e");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/scenario.json") << scenario.dump();
  const auto r = run_cli("run " + dir + "/scenario.json --quiet --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const DurationTrace t = read_duration_trace(dir + "/out/iterations.csv", "compute_s");
  ASSERT_EQ(t.sequences(), static_cast<std::size_t>(kNodes));

  // Every compute time is the scenario's model: the undisturbed step plus its delay (9 significant digits).
  const ComputeModel model = parse_scenario(scenario, dir).compute_model();
  std::vector<std::vector<bool>> slow(kNodes);
  for (std::size_t rank = 0; rank < t.sequences(); ++rank) {
    ASSERT_EQ(t.sequence(rank).size(), static_cast<std::size_t>(kSteps));
    for (int step = 0; step < kSteps; ++step) {
      const double compute = t.sequence(rank)[static_cast<std::size_t>(step)];
      const double expected = kStep + model.delay(static_cast<int>(rank), step, kStep);
      ASSERT_NEAR(compute, expected, 1e-8) << "rank " << rank << " step " << step;
      slow[rank].push_back(compute > 2 * kStep);
    }
  }
  // The nodes of a router are slow on the same steps; routers are not.
  for (int rank = 0; rank < kNodes; ++rank)
    EXPECT_EQ(slow[static_cast<std::size_t>(rank)], slow[static_cast<std::size_t>(rank / kPerRouter * kPerRouter)]);
  EXPECT_NE(slow[0], slow[kPerRouter]);

  // Episode lengths of each router, read from the compute times (the first and last, cut by the run, left out).
  std::vector<double> slow_runs, normal_runs;
  long slow_steps = 0;
  for (int router = 0; router < kNodes / kPerRouter; ++router) {
    const auto& seq = slow[static_cast<std::size_t>(router * kPerRouter)];
    slow_steps += std::count(seq.begin(), seq.end(), true);
    std::size_t start = 0;
    for (std::size_t i = 1; i < seq.size(); ++i) {
      if (seq[i] == seq[start]) continue;
      if (start > 0) (seq[start] ? slow_runs : normal_runs).push_back(static_cast<double>(i - start));
      start = i;
    }
  }
  auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  // Tolerance: 4 standard errors of a mean of n geometric lengths (sd sqrt(m (m - 1))).
  auto tolerance = [](double m, std::size_t n) { return 4 * std::sqrt(m * (m - 1) / static_cast<double>(n)); };
  const double fraction = static_cast<double>(slow_steps) / (kNodes / kPerRouter * kSteps);
  std::printf("[ measured ] from iterations.csv: %zu slow episodes, mean %.3f (configured %.0f, tolerance %.3f); "
              "%zu normal, mean %.3f (%.0f, %.3f); slow fraction %.4f (%.4f)\n",
              slow_runs.size(), mean(slow_runs), kMeanSlow, tolerance(kMeanSlow, slow_runs.size()),
              normal_runs.size(), mean(normal_runs), kMeanNormal, tolerance(kMeanNormal, normal_runs.size()), fraction,
              kMeanSlow / (kMeanSlow + kMeanNormal));
  ASSERT_GT(slow_runs.size(), 800u);
  EXPECT_NEAR(mean(slow_runs), kMeanSlow, tolerance(kMeanSlow, slow_runs.size()));
  EXPECT_NEAR(mean(normal_runs), kMeanNormal, tolerance(kMeanNormal, normal_runs.size()));
  EXPECT_NEAR(fraction, kMeanSlow / (kMeanSlow + kMeanNormal), 0.03);
  // summary.json records the block size correlate resolved to.
  std::ifstream summary(dir + "/out/summary.json");
  EXPECT_EQ(nlohmann::json::parse(summary)["scenario"]["imbalance"]["correlated_ranks"], kPerRouter);
  std::filesystem::remove_all(dir);
}

}  // namespace quorum
