// The CLI end to end: the demo scenario, determinism, bad input, listing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/support/Cli.hpp"
#include "tests/support/Files.hpp"

namespace quorum {

using testing::fresh_path;
using testing::run_cli;

namespace {
using testing::erase_wall_fields;
using testing::read_json;
std::size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}
}  // namespace

// The demo's scenario as shipped: both algorithms reach 80% test accuracy with the softmax proxy, and
// Allreduce-SGD's throughput is within 5% of the README's hand derivation.
TEST(RunCommand, QuickstartScenarioMeetsItsClaims) {
  const std::string out = fresh_path("quorum-quickstart");
  const auto r = run_cli("run scenarios/quickstart.json --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("allreduce"), std::string::npos);
  EXPECT_NE(r.out.find("local_sgd"), std::string::npos);
  EXPECT_NE(r.out.find("results: " + out), std::string::npos);
  const auto allreduce = read_json(out + "/allreduce/summary.json");
  const auto local = read_json(out + "/local_sgd/summary.json");
  for (const auto* s : {&allreduce, &local}) {
    EXPECT_GE((*s)["final_test_accuracy"].get<double>(), 0.80) << (*s)["algorithm"];
    EXPECT_EQ((*s)["nodes"], 64);
    EXPECT_EQ((*s)["iterations"], 200);
    for (const char* key : {"scenario", "algorithm", "nodes", "iterations", "throughput_steps_per_s", "sim_time_s",
                            "wall_time_s", "final_test_accuracy", "final_loss", "mean_wait_s", "quorum_version"})
      EXPECT_TRUE(s->contains(key)) << key;
  }
  // README, "How the demo's Allreduce-SGD throughput is derived".
  const double ring = 2.0 * 63 / 64 * 25'559'081.0 * 4 / 5.25e9;
  const double expected = 1.0 / (1 / 1.56 + 0.320 + ring);
  EXPECT_NEAR(allreduce["throughput_steps_per_s"].get<double>(), expected, 0.05 * expected);
  // Local SGD waits less: it synchronises every 10 steps.
  EXPECT_GT(local["throughput_steps_per_s"].get<double>(), allreduce["throughput_steps_per_s"].get<double>());
  EXPECT_EQ(count_lines(out + "/allreduce/iterations.csv"), 64u * 200 + 1);
  EXPECT_EQ(count_lines(out + "/comparison.csv"), 3u);
  std::filesystem::remove_all(out);
}

TEST(RunCommand, SameScenarioAndSeedGiveIdenticalSummaries) {
  const std::string a = fresh_path("quorum-det-a"), b = fresh_path("quorum-det-b");
  const std::string args = "run scenarios/quickstart.json --quiet --set platform.nodes=8 --set workload.iterations=30 "
                           "--out ";
  ASSERT_EQ(run_cli(args + a).exit_code, 0);
  ASSERT_EQ(run_cli(args + b).exit_code, 0);
  for (const char* sub : {"/allreduce/", "/local_sgd/"}) {
    auto sa = read_json(a + sub + "summary.json"), sb = read_json(b + sub + "summary.json");
    EXPECT_GT(sa["wall_time_s"].get<double>(), 0);
    // The simulator's speed within the run: the 28 steps it spans take at most the whole run's wall time.
    EXPECT_GT(sa["wall_s_per_step"].get<double>(), 0);
    EXPECT_LE(sa["wall_s_per_step"].get<double>() * 28, sa["wall_time_s"].get<double>());
    // Its step ends, one per step, in order; the speed is their span over the steps between, the last end left out.
    const auto ends = sa["wall_s_at_step_ends"].get<std::vector<double>>();
    ASSERT_EQ(ends.size(), 30u);
    EXPECT_TRUE(std::is_sorted(ends.begin(), ends.end()));
    EXPECT_LE(ends.back(), sa["wall_time_s"].get<double>());
    EXPECT_DOUBLE_EQ(sa["wall_s_per_step"].get<double>(), (ends[28] - ends.front()) / 28);
    erase_wall_fields(sa);
    erase_wall_fields(sb);
    EXPECT_EQ(sa, sb);
    std::ifstream ia(a + sub + "iterations.csv"), ib(b + sub + "iterations.csv");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(ia), {}), std::string(std::istreambuf_iterator<char>(ib), {}));
  }
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

// Each class of bad input stops the run with a message naming the field, exit status 2, and nothing written.
TEST(RunCommand, BadInputNamesTheFieldAndWritesNothing) {
  const auto trace = fresh_path("quorum-bad-trace") + ".csv";
  std::ofstream(trace) << "duration\n0.5\nnot-a-number\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--set platform.name=summit", "platform.name"},
      {"--set algorithm.name=magic", "algorithm"},
      {"--set math.model=resnet", "math.model"},
      {"--set workload.iterations=null", "workload.iterations"},
      {"--set platform.nodes='\"many\"'", "platform.nodes"},
      {"--set platform.nodes=0", "platform.nodes"},
      {"--set 'algorithm={\"name\":\"local_sgd\",\"tau\":0}'", "algorithm.tau"},
      // quickstart's algorithm is a list: only local_sgd (entry 1) takes tau, and the error names that entry.
      {"--set algorithm.tau=0", "algorithm[1].tau"},
      {"--set algorithm[1].tau=0", "algorithm[1].tau"},
      {"--set algorithm.group_size=4", "algorithm.group_size"},
      {"--set algorithm[5].tau=1", "algorithm[5]"},
      {"--set workload.compute.kind=empirical --set workload.compute.file=" + trace, "workload.compute.file"},
      {"--set math.dataset_dir=/nonexistent", "math.dataset_dir"},
      {"--set workload.profile=unknown_net", "workload.profile"},
  };
  for (const auto& [args, field] : cases) {
    SCOPED_TRACE(args);
    const std::string out = fresh_path("quorum-bad");
    const auto r = run_cli("run scenarios/quickstart.json --quiet " + args + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(field), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  std::filesystem::remove(trace);
  // A file that is not JSON.
  const auto bad = fresh_path("quorum-bad-json") + ".json";
  std::ofstream(bad) << "{ \"name\": ";
  const auto r = run_cli("run " + bad + " --quiet --out " + fresh_path("quorum-bad"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  std::filesystem::remove(bad);
}

// The README's overrides on the default scenario, whose algorithm is a list: by index, and on every entry that
// takes the field (local SGD takes tau, Allreduce-SGD does not and is left alone).
TEST(RunCommand, OverridesAddressTheDefaultScenariosAlgorithmList) {
  for (const std::string set : {"algorithm[1].tau=5", "algorithm.tau=5"}) {
    SCOPED_TRACE(set);
    const std::string out = fresh_path("quorum-list-override");
    const auto r = run_cli("run scenarios/quickstart.json --quiet --set math.model=none --set workload.iterations=10 "
                           "--set " + set + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto local = read_json(out + "/local_sgd/summary.json");
    EXPECT_EQ(local["scenario"]["algorithm"]["tau"], 5) << local["scenario"]["algorithm"];
    const auto allreduce = read_json(out + "/allreduce/summary.json");
    EXPECT_FALSE(allreduce["scenario"]["algorithm"].contains("tau"));
    std::filesystem::remove_all(out);
  }
}

TEST(RunCommand, ListShowsEverySectionWithDescriptions) {
  const auto r = run_cli("list");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* word : {"piz_daint", "maverick2", "localhost", "generic", "resnet50_p100", "transformer_p100",
                           "ppo_habitat", "hyperplane", "lstm_ucf101", "resnet50_cloud", "random_delay", "slow_worker",
                           "linear_skew", "shifted_skew", "distribution", "markov", "ar1", "imbalance.correlate",
                           "allreduce", "local_sgd", "softmax", "mlp"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word;
  EXPECT_EQ(run_cli("run --help").exit_code, 0);
  EXPECT_NE(run_cli("list nonsense").exit_code, 0);
}

}  // namespace quorum
