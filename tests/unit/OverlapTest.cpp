// Backward-pass overlap (algorithm.overlap) of Allreduce-SGD and eager-SGD: step time against a hand derivation,
// the same models as without overlap, bad parameters, and the buckets on the time-line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "tests/support/Cli.hpp"
#include "tests/support/Files.hpp"
#include "tests/support/ScenarioHarness.hpp"

namespace quorum {

using testing::simulate_scenario;

namespace {
nlohmann::json resnet_scenario(int nodes, int iterations, bool overlap) {
  return {{"name", "overlap-test"},
          {"seed", 5},
          {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
          {"workload",
           {{"profile", "resnet50_p100"}, {"iterations", iterations}, {"compute", {{"kind", "constant"}, {"seconds", 0.2}}}}},
          {"algorithm", {{"name", "allreduce"}, {"overlap", overlap}}},
          {"output", {{"progress", false}}}};
}
}  // namespace

TEST(AllreduceOverlap, StepEndsWithTheLastBucketsAllreduce) {
  auto s = resnet_scenario(16, 5, true);
  const auto r = simulate_scenario(s);
  ASSERT_TRUE(r.ok) << r.error;
  // ResNet-50 in backward order in 25 MiB buckets (fc..layer4.1.conv3 7,566,313 parameters; layer4.1.conv2..
  // layer4.0.conv3 6,563,840; layer4.0.conv2..layer3.2.conv2 7,091,712; layer3.2.conv1..conv1 4,337,216). Compute
  // C = 0.2 s: forward 1/3, then the buckets' backward shares (6.7%, 7.9%, 25.4%, 60.1% of the FLOPs), so the
  // first three buckets are ready at 0.076, 0.086 and 0.120 s and their ring allreduces (2 x 15/16 x bytes /
  // 5.25 GB/s: 10.8, 9.4 and 10.1 ms, one after the other) are done by 0.13 s. The last bucket is ready at C and
  // its allreduce takes 2 x 15/16 x 17,348,864 B / 5.25 GB/s = 6.2 ms: the step is max(C, C + 6.2 ms).
  const double last = 2.0 * 15 / 16 * 4'337'216.0 * 4 / 5.25e9;
  const double expected = 1.0 / (0.2 + last);
  EXPECT_NEAR(r.summary["throughput_steps_per_s"].get<double>(), expected, 0.01 * expected);
  // Without overlap the whole 102 MB follows the compute: 36.5 ms.
  s["algorithm"]["overlap"] = false;
  const auto plain = simulate_scenario(s);
  ASSERT_TRUE(plain.ok) << plain.error;
  const double whole = 1.0 / (0.2 + 2.0 * 15 / 16 * 25'559'081.0 * 4 / 5.25e9);
  EXPECT_NEAR(plain.summary["throughput_steps_per_s"].get<double>(), whole, 0.01 * whole);
}

TEST(AllreduceOverlap, ModelsEqualTheNonOverlappedRunBitForBit) {
  for (const char* allreduce : {"ring", "recursive_doubling", "rabenseifner"}) {
    SCOPED_TRACE(allreduce);
    auto s = resnet_scenario(6, 12, false);
    s["imbalance"] = {{"kind", "random_delay"}, {"ranks", 1}, {"delay_s", 0.1}};
    s["math"] = {{"model", "hyperplane"}, {"batch", 32}, {"dim", 64}, {"train_size", 2048}, {"test_size", 512},
                 {"lr", 0.02}};
    s["algorithm"]["allreduce"] = allreduce;
    const auto plain = simulate_scenario(s);
    ASSERT_TRUE(plain.ok) << plain.error;
    s["algorithm"]["overlap"] = true;
    const auto overlapped = simulate_scenario(s);
    ASSERT_TRUE(overlapped.ok) << overlapped.error;
    ASSERT_EQ(overlapped.final_params.size(), 6u);
    EXPECT_EQ(overlapped.final_params, plain.final_params);
    EXPECT_EQ(overlapped.summary["final_loss"].get<double>(), plain.summary["final_loss"].get<double>());
    // ... and the overlapped run is faster.
    EXPECT_GT(overlapped.summary["throughput_steps_per_s"].get<double>(),
              plain.summary["throughput_steps_per_s"].get<double>());
  }
}

TEST(EagerOverlap, PerBucketPartialAllreducesEqualTheWholeModelsWithoutStragglers) {
  auto s = resnet_scenario(8, 10, false);
  s["algorithm"] = {{"name", "eager_sgd"}, {"model_sync_every", 0}};
  s["math"] = {{"model", "hyperplane"}, {"batch", 32}, {"dim", 64}, {"train_size", 2048}, {"test_size", 512},
               {"lr", 0.02}};
  const auto plain = simulate_scenario(s);
  ASSERT_TRUE(plain.ok) << plain.error;
  s["algorithm"]["overlap"] = true;
  const auto overlapped = simulate_scenario(s);
  ASSERT_TRUE(overlapped.ok) << overlapped.error;
  // Everyone is in time for every bucket, and recursive doubling sums a value in the same order wherever it sits.
  EXPECT_EQ(overlapped.final_params, plain.final_params);
  EXPECT_DOUBLE_EQ(overlapped.summary["mean_active_processes"].get<double>(), 8.0);
  EXPECT_EQ(overlapped.summary["staleness_histogram"], nlohmann::json({{"0", 4 * 8 * 10}}));  // per bucket
  EXPECT_GT(overlapped.summary["throughput_steps_per_s"].get<double>(),
            1.1 * plain.summary["throughput_steps_per_s"].get<double>());
  // With a straggler, each bucket's collective is activated by the first rank done with it; late buckets are
  // accumulated into the next step as the whole-model eager-SGD does, and training still converges.
  s["imbalance"] = {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.1}};
  const auto late = simulate_scenario(s);
  ASSERT_TRUE(late.ok) << late.error;
  EXPECT_LT(late.summary["mean_active_processes"].get<double>(), 8.0);
  EXPECT_LT(late.summary["final_loss"].get<double>(), late.summary["initial_loss"].get<double>());
}

TEST(AllreduceOverlap, BadParametersNameTheField) {
  auto s = resnet_scenario(4, 2, true);
  s["algorithm"]["bucket_bytes"] = 0;
  auto r = simulate_scenario(s);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("bucket_bytes"), std::string::npos) << r.error;
  s["algorithm"]["bucket_bytes"] = -5;
  r = simulate_scenario(s);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("bucket_bytes"), std::string::npos) << r.error;
  s = resnet_scenario(4, 2, true);
  s["algorithm"]["overlap"] = "yes";
  r = simulate_scenario(s);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("overlap"), std::string::npos) << r.error;
  // eager-SGD: at most 128 partial allreduces at once; ResNet-200 has 204 layers, one bucket each at 1 byte.
  s = resnet_scenario(4, 2, true);
  s["workload"]["profile"] = "resnet200_imagenet_1080ti";
  s["algorithm"] = {{"name", "eager_sgd"}, {"overlap", true}, {"bucket_bytes", 1}};
  r = simulate_scenario(s);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("bucket_bytes"), std::string::npos) << r.error;
}

TEST(AllreduceOverlap, TimelineShowsEveryBucketsAllreduce) {
  const std::string out = testing::fresh_path("quorum-overlap-trace");
  const auto r = testing::run_cli(
      "run scenarios/quickstart.json --quiet --set math.model=none --set platform.nodes=4 "
      "--set workload.iterations=3 --set 'algorithm=[{\"name\":\"allreduce\",\"overlap\":true}]' --trace --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto trace = testing::read_json(out + "/trace.json");
  int buckets = 0;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> rows;  // (pid, tid) -> slices
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const double ts = e["ts"].get<double>();
    rows[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(ts, ts + e["dur"].get<double>());
    if (e["name"].get<std::string>().rfind("allreduce bucket", 0) == 0) {
      ++buckets;
      EXPECT_EQ(e["tid"].get<int>(), 100);  // the rank's first agent's compute / comm row
    }
  }
  EXPECT_EQ(buckets, 4 * 3 * 4);  // 4 ranks x 3 steps x ResNet-50's 4 buckets of 25 MiB
  // Buckets follow each other on their row (10 ns of slack: the trace rounds ts and dur separately).
  for (auto& [row, slices] : rows) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i)
      EXPECT_GE(slices[i].first + 1e-2, slices[i - 1].second) << "overlapping slices in row " << row.first << "/" << row.second;
  }
  std::filesystem::remove_all(out);
}

}  // namespace quorum
