// The MPI driver end to end, in-process on the job's ranks: Allreduce-SGD and local SGD on the real backend (replicas
// identical, records of every rank gathered, summary in the simulator's format), the records' round trip, the
// calibration's fit and a quick calibration.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "sim/model/Scenario.hpp"
#include "tests/mpi/MpiHarness.hpp"
#include "validation/calibrate/Calibration.hpp"
#include "validation/mpi/MpiRun.hpp"
#include "validation/mpi/RankRecord.hpp"
#include "validation/mpi/WaitMode.hpp"

namespace quorum {

namespace {

nlohmann::json hyperplane_scenario(const std::string& algorithm, int ranks, int iterations) {
  return {{"name", "mpi-run-test"},
          {"seed", 3},
          {"platform", {{"name", "localhost"}, {"nodes", ranks}}},
          {"workload", {{"profile", "hyperplane"}, {"iterations", iterations},
                        {"compute", {{"kind", "constant"}, {"seconds", 0.002}}}}},
          {"imbalance", {{"kind", "random_delay"}, {"ranks", 1}, {"delay_s", 0.003}}},
          {"algorithm", {{"name", algorithm}}},
          {"math", {{"model", "hyperplane"}, {"batch", 16}, {"dim", 32}, {"train_size", 1024}, {"test_size", 256},
                    {"lr", 0.02}, {"eval_every", 4}}},
          {"mpi", {{"timeout_s", 60}}},
          {"output", {{"progress", false}}}};
}

}  // namespace

TEST(MpiRun, AllreduceSgdKeepsReplicasIdenticalAndWritesTheSimulatorsSummary) {
  for (const bool native : {true, false}) {
    SCOPED_TRACE(native ? "native MPI allreduce" : "point-to-point ring");
    auto json = hyperplane_scenario("allreduce", testing::mpi_size(), 12);
    json["mpi"]["native_allreduce"] = native;
    const Scenario s = parse_scenario(json, "");
    const auto out = mpi::run_scenario_mpi(s, "");
    if (testing::mpi_rank() != 0) continue;
    ASSERT_EQ(out.final_params.size(), static_cast<std::size_t>(testing::mpi_size()));
    for (const auto& p : out.final_params) EXPECT_EQ(p, out.final_params[0]);
    const auto& j = out.summary;
    EXPECT_EQ(j["backend"], "mpi");
    EXPECT_EQ(j["ranks"], testing::mpi_size());
    EXPECT_GT(j["throughput_steps_per_s"].get<double>(), 0);
    EXPECT_LT(j["final_loss"].get<double>(), j["initial_loss"].get<double>());
    EXPECT_EQ(j["evaluations"].size(), 4u);  // initial + after steps 4, 8, 12
    EXPECT_TRUE(j["mpi"]["native_allreduce"].is_null() != native);
  }
}

TEST(MpiRun, OverlappedAllreduceSgdEqualsTheNonOverlappedRun) {
  // ResNet-50's layer table (4 buckets of 25 MiB) on a short emulated step: the buckets' allreduces run on an agent
  // thread between the parts of the step's sleep, and sum every value as the non-overlapped step does.
  for (const bool native : {true, false}) {
    SCOPED_TRACE(native ? "native MPI allreduce" : "point-to-point ring");
    auto json = hyperplane_scenario("allreduce", testing::mpi_size(), 8);
    json["workload"]["profile"] = "resnet50_p100";
    json["mpi"]["native_allreduce"] = native;
    json["mpi"]["message_bytes"] = "payload";  // not ResNet-50's 102 MB per step on the test machine
    const auto plain = mpi::run_scenario_mpi(parse_scenario(json, ""), "");
    json["algorithm"]["overlap"] = true;
    const auto overlapped = mpi::run_scenario_mpi(parse_scenario(json, ""), "");
    if (testing::mpi_rank() != 0) continue;
    ASSERT_EQ(overlapped.final_params.size(), static_cast<std::size_t>(testing::mpi_size()));
    for (const auto& p : overlapped.final_params) EXPECT_EQ(p, overlapped.final_params[0]);
    if (!native) {
      EXPECT_EQ(overlapped.final_params, plain.final_params);  // MPI_Allreduce promises no summation order
    }
  }
}

TEST(MpiRun, LocalSgdAveragesOnlyAtSyncPoints) {
  auto json = hyperplane_scenario("local_sgd", testing::mpi_size(), 10);
  json["algorithm"]["tau"] = 4;  // last average after step 8, then 2 local steps
  auto out = mpi::run_scenario_mpi(parse_scenario(json, ""), "");
  if (testing::mpi_rank() == 0) {
    EXPECT_NE(out.final_params[1], out.final_params[0]);
  }
  json["workload"]["iterations"] = 8;
  out = mpi::run_scenario_mpi(parse_scenario(json, ""), "");
  if (testing::mpi_rank() == 0) {
    for (const auto& p : out.final_params) EXPECT_EQ(p, out.final_params[0]);
  }
}

TEST(MpiRun, RankMismatchIsABadScenarioOnEveryRank) {
  auto json = hyperplane_scenario("allreduce", testing::mpi_size() + 1, 2);
  const Scenario s = parse_scenario(json, "");
  try {
    mpi::run_scenario_mpi(s, "");
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field(), "platform.nodes");
  }
}

TEST(MpiRun, RankRecordsRoundTripIntoOneRecorder) {
  RunRecorder rec("x", 2, 3, false);
  rec.step_done({1, 0, 0.5, 0.25, 0.125, 0.0625});
  rec.sample(1, "nap", 3);
  rec.sample(1, "nap", 5);
  rec.histogram(1, "staleness", 2);
  rec.table_row("groups", {{"step", 0}, {"member", 1}});
  const auto j = mpi::encode_rank_record(rec, 1, {1.5f, -2.25f}, {{"x", 1}});
  const auto bytes = nlohmann::json::to_cbor(j);
  RunRecorder merged("x", 2, 3, false);
  merged.sample(0, "nap", 1);
  std::vector<std::vector<float>> params;
  const auto backend = mpi::merge_rank_record(nlohmann::json::from_cbor(bytes), merged, params);
  EXPECT_EQ(backend["x"], 1);
  ASSERT_EQ(merged.steps().size(), 1u);
  EXPECT_EQ(merged.steps()[0].wait_s, 0.0625);
  EXPECT_EQ(merged.metrics().at("nap").count, 3);
  EXPECT_EQ(merged.metrics().at("nap").sum, 9);
  EXPECT_EQ(merged.metrics().at("nap").min, 1);
  EXPECT_EQ(merged.histograms().at("staleness").at(2), 1);
  EXPECT_EQ(merged.tables().at("groups").rows.size(), 1u);
  EXPECT_EQ(params.at(0), (std::vector<float>{1.5f, -2.25f}));
}

TEST(Calibration, AlphaBetaFitRecoversLatencyAndBandwidth) {
  std::vector<std::pair<double, double>> points;
  for (double bytes : {4096.0, 65536.0, 1048576.0, 16777216.0}) points.emplace_back(bytes, 20e-6 + bytes / 5e9);
  const auto fit = calibration::fit_alpha_beta(points);
  EXPECT_NEAR(fit.bandwidth_Bps, 5e9, 5e9 * 1e-6);
  EXPECT_NEAR(fit.latency_s, 20e-6, 1e-9);
}

TEST(Calibration, AlphaBetaFitRecoversLatencyAndBandwidthFromNoisyTimings) {
  // Timings as a busy machine gives them: +-3% around 5 us + bytes / 12 GB/s, two repetitions per size.
  std::vector<std::pair<double, double>> points;
  const double noise[] = {1.03, 0.97, 0.99, 1.02, 1.01, 0.98, 1.00, 1.03, 0.97, 1.01, 0.99, 1.02};
  int k = 0;
  for (double bytes : {65536.0, 262144.0, 1048576.0, 4194304.0, 16777216.0, 67108864.0})
    for (int rep = 0; rep < 2; ++rep) points.emplace_back(bytes, (5e-6 + bytes / 12e9) * noise[k++]);
  const auto fit = calibration::fit_alpha_beta(points);
  EXPECT_NEAR(fit.bandwidth_Bps, 12e9, 12e9 * 0.03);
  // The intercept is the small difference of large numbers: only its order of magnitude survives 3% noise.
  EXPECT_LT(std::abs(fit.latency_s), 200e-6);
}

namespace {

// Few sizes and repetitions, a tiny proxy: a calibration of a few seconds.
calibration::CalibrationOptions quick_calibration() {
  calibration::CalibrationOptions o;
  o.reduce_bytes = 1 << 20;
  o.sizes = {65536, 1 << 20};
  o.latency_round_trips = 20;
  o.seconds_per_size = 0.01;
  o.proxy_steps = 3;
  MathConfig proxy;
  proxy.model = "hyperplane";
  proxy.batch = 32;
  proxy.hyperplane.dim = 64;
  proxy.hyperplane.train_size = 1024;
  proxy.hyperplane.test_size = 128;
  o.proxy = proxy;
  return o;
}

}  // namespace

TEST(Calibration, QuickCalibrationMeasuresEveryFigure) {
  calibration::CalibrationOptions o = quick_calibration();
  o.native_sizes = {4096, 65536};
  const auto j = calibration::calibrate(o);
  if (testing::mpi_rank() != 0) return;
  EXPECT_GT(j["latency_s"].get<double>(), 0);
  EXPECT_GT(j["bandwidth_Bps"].get<double>(), 0);
  EXPECT_GT(j["proxy_step_s"].get<double>(), 0);
  EXPECT_EQ(j["ranks"], testing::mpi_size());
  EXPECT_EQ(j["pairs"].size(), 1u);  // one host: the same-host pair only
  // Plain MPI beside Comm, size by size.
  const auto& pair = j["pairs"][0];
  EXPECT_GT(pair["raw_mpi"]["latency_s"].get<double>(), 0);
  EXPECT_GT(pair["raw_mpi"]["bandwidth_Bps"].get<double>(), 0);
  ASSERT_EQ(pair["sizes"].size(), 2u);
  for (const auto& size : pair["sizes"]) EXPECT_GT(size["raw_mpi_one_way_s"].get<double>(), 0);
  for (const auto& exchange : j["concurrent_exchange"]) EXPECT_GT(exchange["raw_mpi_seconds"].get<double>(), 0);
  EXPECT_GT(j["reduce_Bps"].get<double>(), 0);
  // The native allreduce by group size (2, 4, ..., and the world) and message size.
  std::set<int> group_sizes;
  for (const auto& row : j["native_allreduce"]) {
    group_sizes.insert(row["ranks"].get<int>());
    EXPECT_GT(row["seconds"].get<double>(), 0);
  }
  EXPECT_TRUE(group_sizes.count(testing::mpi_size()));
  EXPECT_EQ(j["native_allreduce"].size(), group_sizes.size() * 2);
  // The cores (this host's, as the wait mode reads them), the lone reduction rate, and every proper group size dividing
  // the world with its groups all reducing at once.
  EXPECT_EQ(j["cores"].get<int>(), mpi::usable_cores());
  EXPECT_GT(j["reduce_alone_Bps"].get<double>(), 0);
  std::set<int> concurrent_sizes;
  for (const auto& row : j["native_allreduce_concurrent"]) {
    EXPECT_EQ(row["groups"].get<int>() * row["ranks"].get<int>(), testing::mpi_size());
    EXPECT_EQ(row["bytes"].get<double>(), 65536.0);
    EXPECT_GT(row["seconds"].get<double>(), 0);
    concurrent_sizes.insert(row["ranks"].get<int>());
  }
  std::set<int> proper;
  for (int k : group_sizes)
    if (k < testing::mpi_size() && testing::mpi_size() % k == 0) proper.insert(k);
  EXPECT_EQ(concurrent_sizes, proper);
  EXPECT_EQ(j["native_allreduce_concurrent"].size(), proper.size());
}

TEST(Calibration, BlocksOfRanksAsNodesGiveAPlatformOfSeveralNodes) {
  // On one machine the "nodes" share everything, so only the path is checked: an inter-node pair and the adapters
  // are measured, and the file gives a localhost platform of two nodes that a scenario can scale to four.
  calibration::CalibrationOptions o = quick_calibration();
  o.ranks_per_node = testing::mpi_size() / 2;
  o.native_sizes = {4096};
  const auto j = calibration::calibrate(o);
  if (testing::mpi_rank() != 0) return;
  EXPECT_EQ(j["ranks_per_node"].get<int>(), o.ranks_per_node);
  ASSERT_EQ(j["pairs"].size(), 2u);
  EXPECT_TRUE(j["pairs"][0]["same_node"].get<bool>());
  EXPECT_FALSE(j["pairs"][1]["same_node"].get<bool>());
  EXPECT_EQ(j["pairs"][1]["ranks"][1].get<int>(), o.ranks_per_node);  // rank 0 and the first rank of node 1
  EXPECT_EQ(j["latency_s"], j["pairs"][0]["latency_s"]);             // a node's figures
  EXPECT_EQ(j["inter_node"]["latency_s"], j["pairs"][1]["latency_s"]);
  EXPECT_GT(j["inter_node"]["adapter_Bps"].get<double>(), 0);
  const auto file = std::filesystem::temp_directory_path() / "quorum-multi-node-calibration.json";
  std::ofstream(file) << j.dump();
  nlohmann::json scenario = {{"name", "multi-node"},
                             {"platform", {{"name", "localhost"}, {"nodes", 4 * o.ranks_per_node},
                                           {"calibration", file.string()}}},
                             {"workload", {{"profile", "resnet50_p100"}, {"iterations", 2}}},
                             {"algorithm", {{"name", "allreduce"}}}};
  const Scenario parsed = parse_scenario(scenario, "");
  const auto& platform = std::get<LocalhostConfig>(parsed.platform);
  EXPECT_EQ(localhost_nodes(platform), 4);
  EXPECT_DOUBLE_EQ(platform.adapter_bandwidth_Bps, j["inter_node"]["adapter_Bps"].get<double>());
  std::filesystem::remove(file);
}

}  // namespace quorum
