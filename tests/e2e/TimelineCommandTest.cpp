// quorum run --trace: the Chrome trace of a simulated run, its selection of ranks and steps, and that it is well
// formed for trace viewers (slices of one row nest or follow each other, never overlap partly).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "tests/support/Cli.hpp"
#include "tests/support/Files.hpp"

namespace quorum {

using testing::fresh_path;
using testing::run_cli;

namespace {
using testing::read_json;
}  // namespace

TEST(TimelineCommand, TraceHoldsComputeCommAndWaitOfEveryRankAndStep) {
  const std::string out = fresh_path("quorum-trace");
  const auto r = run_cli("run scenarios/quickstart.json --quiet --set math.model=none --set platform.nodes=4 "
                         "--set workload.iterations=12 --set 'algorithm=[{\"name\":\"allreduce\"}]' --trace --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("trace.json"), std::string::npos) << r.out;
  const auto trace = read_json(out + "/trace.json");
  const auto summary = read_json(out + "/summary.json");
  EXPECT_EQ(trace["otherData"]["algorithm"], "allreduce");
  EXPECT_EQ(trace["otherData"]["time"], "simulated seconds");
  EXPECT_EQ(summary["trace"]["file"], "trace.json");
  EXPECT_EQ(summary["trace"]["dropped_events"], 0);

  std::map<std::string, int> per_category;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> rows;  // (pid, tid) -> slices
  std::set<int> pids;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M") continue;
    ASSERT_EQ(e["ph"], "X") << e.dump();
    ++per_category[e["cat"]];
    pids.insert(e["pid"].get<int>());
    const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
    EXPECT_GT(dur, 0);
    rows[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(ts, ts + dur);
  }
  EXPECT_EQ(pids, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(per_category["compute"], 4 * 12);
  EXPECT_EQ(per_category["comm"], 4 * 12);  // every step ends with an allreduce
  EXPECT_GT(per_category["wait"], 0);        // the ranks that were not delayed wait for the two that were
  EXPECT_EQ(static_cast<std::int64_t>(summary["trace"]["events"].get<std::size_t>()),
            per_category["compute"] + per_category["comm"] + per_category["wait"]);
  for (auto& [row, slices] : rows) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i)
      EXPECT_GE(slices[i].first + 1e-3, slices[i - 1].second) << "overlapping slices in row " << row.first << "/" << row.second;
  }
  std::filesystem::remove_all(out);
}

TEST(TimelineCommand, RanksAndStepsCanBeSelected) {
  const std::string out = fresh_path("quorum-trace-select");
  const auto r = run_cli("run scenarios/quickstart.json --quiet --set math.model=none --set platform.nodes=8 "
                         "--set workload.iterations=30 --set 'algorithm=[{\"name\":\"local_sgd\",\"tau\":10}]' "
                         "--trace-ranks 2-3,6 --trace-steps 15-19 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto trace = read_json(out + "/trace.json");
  std::set<int> pids;
  std::set<std::string> steps;
  int waits = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M") continue;
    pids.insert(e["pid"].get<int>());
    if (e["cat"] == "compute") steps.insert(e["name"]);
    if (e["cat"] == "wait") {
      ++waits;
      // Waits happen only in step 19's average (tau = 10), which starts after step 19's compute.
      EXPECT_GT(e["ts"].get<double>(), 19 * 0.6e6);
    }
  }
  EXPECT_EQ(pids, (std::set<int>{2, 3, 6}));
  EXPECT_EQ(steps, (std::set<std::string>{"step 15", "step 16", "step 17", "step 18", "step 19"}));
  EXPECT_GT(waits, 0);
  const auto bad = run_cli("run scenarios/quickstart.json --quiet --trace-ranks 3-1 --out " + fresh_path("quorum-bad"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("output.trace_ranks"), std::string::npos) << bad.err;
  std::filesystem::remove_all(out);
}

// Algorithms' own events: the partial collectives' activations (eager-SGD, WAGMA-SGD) and Prague's group
// generator, on the rows of the progress agents that emit them.
TEST(TimelineCommand, ActivationAndGroupGeneratorEventsHaveTheirRows) {
  const std::string out = fresh_path("quorum-trace-events");
  const auto eager = run_cli("run scenarios/quickstart.json --quiet --set math.model=none --set platform.nodes=4 "
                             "--set workload.iterations=6 --set 'algorithm=[{\"name\":\"eager_sgd\"}]' --trace --out " +
                             out + "/eager");
  ASSERT_EQ(eager.exit_code, 0) << eager.err;
  const auto prague = run_cli("run scenarios/prague/resnet18_homogeneous.json --quiet --set math.model=none "
                              "--set workload.iterations=6 --set 'algorithm=[{\"name\":\"prague\",\"mode\":\"random\"}]' "
                              "--trace --out " + out + "/prague");
  ASSERT_EQ(prague.exit_code, 0) << prague.err;
  for (const auto& [dir, category] : {std::pair<std::string, std::string>{"/eager", "activation"},
                                      std::pair<std::string, std::string>{"/prague", "group_generator"}}) {
    const auto trace = read_json(out + dir + "/trace.json");
    std::map<std::pair<int, int>, std::string> rows;
    for (const auto& e : trace["traceEvents"])
      if (e["ph"] == "M" && e["name"] == "thread_name") rows[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
    int events = 0;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "M" || e["cat"] != category) continue;
      ++events;
      EXPECT_EQ(e["ph"], "i");  // instants: the moment a version or group was activated
      EXPECT_EQ(rows[std::make_pair(e["pid"].get<int>(), e["tid"].get<int>())], "agent 1: " + category);
    }
    EXPECT_GT(events, 0) << category;
  }
  std::filesystem::remove_all(out);
}

}  // namespace quorum
