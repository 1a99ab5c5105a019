// Prague's slowdown in both readings, end to end: one worker "5x slower" takes 5 step times per step when the factor
// is the total step (factor_means: total_step, the figure captions) and 6 when it is a sleep added to the step
// (added_sleep, Prague sec. 7.4: "adding 2 or 5 times the normal iteration time of sleep"). Read back from
// iterations.csv of a simulated run in which nobody waits for anybody (local SGD that never averages), so each
// step's duration is its compute time alone.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/support/Cli.hpp"

namespace quorum {

using testing::fresh_path;
using testing::run_cli;

namespace {

struct Row {
  double start_s = 0, compute_s = 0;
};

// rows[rank][step] of iterations.csv (columns rank,step,start_s,compute_s,comm_s,wait_s).
std::map<int, std::map<int, Row>> read_iterations(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::map<int, std::map<int, Row>> rows;
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::string cell;
    std::vector<double> v;
    while (std::getline(s, cell, ',')) v.push_back(std::stod(cell));
    rows[static_cast<int>(v.at(0))][static_cast<int>(v.at(1))] = Row{v.at(2), v.at(3)};
  }
  return rows;
}

}  // namespace

TEST(SlowdownReading, TotalStepAndAddedSleepGiveTheirExactStepTimes) {
  constexpr int kRanks = 4, kSteps = 6, kSlow = 2;
  constexpr double kStep = 0.05, kFactor = 5;
  struct Reading {
    std::string factor_means;
    double slow_step_s;
  };
  for (const Reading& reading :
       {Reading{"total_step", kFactor * kStep}, Reading{"added_sleep", (1 + kFactor) * kStep}}) {
    SCOPED_TRACE(reading.factor_means);
    const nlohmann::json scenario = {
        {"name", "slowdown-reading"},
        {"platform", {{"name", "maverick2"}, {"nodes", 1}, {"gpus_per_node", kRanks}}},
        {"workload", {{"profile", "vgg16_cifar10_1080ti"}, {"iterations", kSteps},
                      {"compute", {{"kind", "constant"}, {"seconds", kStep}}}}},
        {"imbalance", {{"kind", "slow_worker"}, {"ranks", {kSlow}}, {"factor", kFactor},
                       {"factor_means", reading.factor_means}}},
        {"algorithm", {{"name", "local_sgd"}, {"tau", kSteps + 1}}},
        {"output", {{"progress", false}}}};
    const std::string dir = fresh_path("quorum-slowdown-reading");
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/scenario.json") << scenario.dump();
    const auto r = run_cli("run " + dir + "/scenario.json --quiet --out " + dir + "/out");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rows = read_iterations(dir + "/out/iterations.csv");
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(kRanks));
    for (const auto& [rank, steps] : rows) {
      ASSERT_EQ(steps.size(), static_cast<std::size_t>(kSteps));
      const double expected = rank == kSlow ? reading.slow_step_s : kStep;
      for (const auto& [step, row] : steps) {
        EXPECT_NEAR(row.compute_s, expected, 1e-9) << "rank " << rank << " step " << step;
        EXPECT_NEAR(row.start_s, step * expected, 1e-9) << "rank " << rank << " step " << step;
      }
    }
    std::ifstream summary_file(dir + "/out/summary.json");
    const auto summary = nlohmann::json::parse(summary_file);
    EXPECT_EQ(summary["scenario"]["imbalance"]["factor_means"], reading.factor_means);
    EXPECT_DOUBLE_EQ(summary["scenario"]["imbalance"]["step_time_multiplier"].get<double>(),
                     reading.slow_step_s / kStep);
    std::filesystem::remove_all(dir);
  }
}

}  // namespace quorum
