// The shipped eager-SGD and WAGMA scenarios through the CLI: the microbenchmark's latencies and numbers of active
// processes, and WAGMA's group membership table.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "algorithms/collectives/ButterflyGrouping.hpp"
#include "tests/support/Cli.hpp"
#include "tests/support/Files.hpp"

namespace quorum {

using testing::fresh_path;
using testing::run_cli;

namespace {
using testing::read_json;
}  // namespace

TEST(PartialCollectivesRun, ShippedMicrobenchmarkShowsSoloAndMajorityAgainstSync) {
  const std::string out = fresh_path("quorum-microbenchmark");
  const auto r =
      run_cli("run scenarios/eager_sgd/microbenchmark.json --set workload.iterations=8 --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* size : {"64B", "4MB"}) {
    SCOPED_TRACE(size);
    const auto sync = read_json(out + "/sync_" + size + "/summary.json");
    const auto solo = read_json(out + "/solo_" + size + "/summary.json");
    const auto majority = read_json(out + "/majority_" + size + "/summary.json");
    const double l_sync = sync["metrics"]["latency_s"]["mean"], l_solo = solo["metrics"]["latency_s"]["mean"],
                 l_majority = majority["metrics"]["latency_s"]["mean"];
    EXPECT_GT(l_sync, 15.5e-3);  // rank r waits for rank 31: (31 - r) ms on average, plus the allreduce
    EXPECT_LT(l_solo, l_sync / 10);
    EXPECT_LT(l_majority, l_sync / 1.5);
    EXPECT_DOUBLE_EQ(sync["mean_active_processes"].get<double>(), 32.0);
    EXPECT_DOUBLE_EQ(solo["mean_active_processes"].get<double>(), 1.0);
    EXPECT_GT(majority["mean_active_processes"].get<double>(), 8.0);
    EXPECT_LT(majority["mean_active_processes"].get<double>(), 24.0);
  }
}

TEST(PartialCollectivesRun, WagmaWritesTheGroupsOfEveryStep) {
  const std::string out = fresh_path("quorum-wagma-groups");
  const auto r = run_cli(
      "run scenarios/wagma/fig4_resnet50.json --set platform.nodes=16 --set workload.iterations=20 "
      "--set 'algorithm={\"name\":\"wagma\",\"membership_csv\":true}' --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out + "/group_membership.csv");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "version,step,group,rank,fresh,staleness");
  // 20 steps with tau = 10: steps 9 and 19 are global averages, the other 18 are group steps; S = 4.
  const ButterflyGrouping grouping(16, 4);
  std::map<std::pair<int, int>, int> members;  // (step, group) -> ranks
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream cells(line);
    std::string v, step, group, rank;
    std::getline(cells, v, ',');
    std::getline(cells, step, ',');
    std::getline(cells, group, ',');
    std::getline(cells, rank, ',');
    ++rows;
    ++members[{std::stoi(step), std::stoi(group)}];
    EXPECT_EQ(grouping.group_of(std::stoi(rank), std::stoi(step)).members.front(), std::stoi(group)) << line;
    EXPECT_NE(std::stoi(step) % 10, 9) << "a global-average step has no group row";
  }
  EXPECT_EQ(rows, 16 * 18);
  for (const auto& [key, count] : members) EXPECT_EQ(count, 4);
  const auto summary = read_json(out + "/summary.json");
  EXPECT_GT(summary["mean_active_processes"].get<double>(), 0.0);
  EXPECT_FALSE(summary["staleness_histogram"].is_null());
}

}  // namespace quorum
