// The MPI backend through the CLI, as a user runs it: `scripts/mpirun-local -np 4 build/quorum run S --backend mpi`.
// Cross-backend agreement of the final models with the simulation, the results format, bad input, the failure
// handling (a rank that hangs, throws or dies ends the job with its rank and step, and nothing is written), and
// calibrate + validate end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "tests/support/MpiCli.hpp"
#include "tests/support/ScenarioHarness.hpp"

namespace quorum {

using testing::run_mpi_cli;

namespace {

constexpr int kRanks = 4;

nlohmann::json small_scenario(const nlohmann::json& algorithm, int iterations = 16) {
  return {{"name", "mpi-e2e"},
          {"seed", 21},
          {"platform", {{"name", "localhost"}, {"nodes", kRanks}}},
          {"workload", {{"profile", "hyperplane"}, {"iterations", iterations},
                        {"compute", {{"kind", "constant"}, {"seconds", 0.002}}}}},
          {"imbalance", {{"kind", "random_delay"}, {"ranks", 1}, {"delay_s", 0.004}}},
          {"algorithm", algorithm},
          {"math", {{"model", "hyperplane"}, {"batch", 16}, {"dim", 48}, {"train_size", 1024}, {"test_size", 128},
                    {"lr", 0.05}}},
          {"mpi", {{"timeout_s", 60}}},
          {"output", {{"progress", false}, {"final_params", true}}}};
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::vector<std::vector<float>> mpi_final_params(const nlohmann::json& scenario, std::string* error) {
  const std::string file = testing::write_temp_json("quorum-mpi-scenario", scenario.dump());
  const std::string out = testing::fresh_path("quorum-mpi-run");
  const auto r = run_mpi_cli(kRanks, "run '" + file + "' --backend mpi --quiet --out '" + out + "'");
  std::vector<std::vector<float>> params;
  if (r.exit_code != 0) {
    *error = "exit " + std::to_string(r.exit_code) + ": " + r.err;
  } else {
    params = read_json(out + "/final_params.json")["ranks"].get<std::vector<std::vector<float>>>();
  }
  std::filesystem::remove_all(out);
  std::filesystem::remove(file);
  return params;
}

// How two runs' final models must agree.
enum class Agreement { Bitwise, Relative1e6 };

struct CrossBackendCase {
  std::string label;
  nlohmann::json algorithm;
  bool native_allreduce;  // MPI_Allreduce reduces in its own order; the point-to-point path in the simulated one
  Agreement agreement;
};

// Add an algorithm here to hold its simulated and real runs to the same model.
const std::vector<CrossBackendCase> kCrossBackendCases = {
    {"allreduce, point-to-point ring", {{"name", "allreduce"}}, false, Agreement::Bitwise},
    {"allreduce, native MPI_Allreduce", {{"name", "allreduce"}}, true, Agreement::Relative1e6},
    {"local_sgd, point-to-point ring", {{"name", "local_sgd"}, {"tau", 3}}, false, Agreement::Bitwise},
    {"local_sgd, native MPI_Allreduce", {{"name", "local_sgd"}, {"tau", 3}}, true, Agreement::Relative1e6},
    {"dpsgd", {{"name", "dpsgd"}}, false, Agreement::Bitwise},
    {"sgp, 2 neighbours", {{"name", "sgp"}, {"neighbors", 2}}, false, Agreement::Bitwise},
    {"wagma, blocking groups", {{"name", "wagma"}, {"wait_avoiding", false}, {"blocking_groups", true}, {"tau", 4}},
     false, Agreement::Bitwise},
    {"wagma, no group averaging (local SGD)", {{"name", "wagma"}, {"wait_avoiding", false}, {"tau", 4}}, false,
     Agreement::Bitwise},
    {"prague, static schedule", {{"name", "prague"}, {"mode", "static"}}, false, Agreement::Bitwise},
    {"allreduce, point-to-point recursive doubling", {{"name", "allreduce"}, {"allreduce", "recursive_doubling"}},
     false, Agreement::Bitwise},
    {"allreduce, point-to-point Rabenseifner", {{"name", "allreduce"}, {"allreduce", "rabenseifner"}}, false,
     Agreement::Bitwise},
    {"dpsgd, overlapped exchange", {{"name", "dpsgd"}, {"overlap", true}}, false, Agreement::Bitwise},
    {"sgp, overlapped pushes", {{"name", "sgp"}, {"overlap", true}}, false, Agreement::Bitwise},
    // Every version of the partial allreduce synchronous: the progress agents, the main agent's requests to them and
    // the butterfly run as in any eager-SGD run, and every contribution is fresh, so the sums are fixed.
    {"eager_sgd, every version synchronous",
     {{"name", "eager_sgd"}, {"collective", "solo"}, {"collective_sync_every", 1}}, false, Agreement::Bitwise},
    {"eager_sgd majority, Rabenseifner schedule, every version synchronous",
     {{"name", "eager_sgd"}, {"collective", "majority"}, {"schedule", "rabenseifner"}, {"collective_sync_every", 1}},
     false, Agreement::Bitwise},
    // One worker and three server shards: with a single worker nothing interleaves at the servers, so the order of
    // updates, and the final model every rank receives, is fixed.
    {"async_ps, one worker, three servers", {{"name", "async_ps"}, {"servers", 3}}, false, Agreement::Bitwise},
    {"eamsgd, one worker, three servers, tau 3", {{"name", "eamsgd"}, {"servers", 3}, {"tau", 3}}, false,
     Agreement::Bitwise},
};

}  // namespace

TEST(CrossBackend, FinalModelsAfterTheSameStepsMatchTheSimulation) {
  for (const auto& c : kCrossBackendCases) {
    SCOPED_TRACE(c.label);
    nlohmann::json s = small_scenario(c.algorithm);
    s["mpi"]["native_allreduce"] = c.native_allreduce;
    const auto simulated = testing::simulate_scenario(s);
    ASSERT_TRUE(simulated.ok) << simulated.error;
    std::string error;
    const auto real = mpi_final_params(s, &error);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(real.size(), simulated.final_params.size());
    for (std::size_t r = 0; r < real.size(); ++r) {
      ASSERT_EQ(real[r].size(), simulated.final_params[r].size());
      for (std::size_t i = 0; i < real[r].size(); ++i) {
        const float a = real[r][i], b = simulated.final_params[r][i];
        if (c.agreement == Agreement::Bitwise) {
          ASSERT_EQ(a, b) << "rank " << r << " index " << i;
        } else {
          ASSERT_NEAR(a, b, 1e-6 * std::max(1.0f, std::abs(b))) << "rank " << r << " index " << i;
        }
      }
    }
  }
}

// The asynchronous server algorithms with several workers, whose pushes interleave at the server in whatever order
// they arrive: on MPI too the servers see every worker's last push, the run ends, and every rank holds the servers'
// model.
TEST(MpiBackend, ParameterServerAlgorithmsEndWithEveryRankHoldingTheServersModel) {
  for (const nlohmann::json& algorithm : {nlohmann::json{{"name", "async_ps"}},
                                          nlohmann::json{{"name", "eamsgd"}, {"tau", 2}}}) {
    SCOPED_TRACE(algorithm.dump());
    std::string error;
    const auto real = mpi_final_params(small_scenario(algorithm, 9), &error);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(real.size(), static_cast<std::size_t>(kRanks));
    ASSERT_FALSE(real[0].empty());
    for (const auto& p : real) EXPECT_EQ(p, real[0]);
  }
}

TEST(MpiBackend, WritesTheSimulatorsResultFilesWithMeasuredTimes) {
  nlohmann::json s = small_scenario(nlohmann::json::array({{{"name", "allreduce"}}, {{"name", "local_sgd"}}}), 6);
  const std::string file = testing::write_temp_json("quorum-mpi-scenario", s.dump());
  const std::string out = testing::fresh_path("quorum-mpi-run");
  const auto r = run_mpi_cli(kRanks, "run '" + file + "' --backend mpi --out '" + out + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("4 ranks on MPI"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(out + "/comparison.csv"));
  const auto simulated = testing::simulate_scenario(small_scenario({{"name", "allreduce"}}, 6));
  ASSERT_TRUE(simulated.ok) << simulated.error;
  for (const std::string label : {"allreduce", "local_sgd"}) {
    SCOPED_TRACE(label);
    const auto summary = read_json(out + "/" + label + "/summary.json");
    EXPECT_EQ(summary["backend"], "mpi");
    EXPECT_EQ(summary["algorithm"], label);
    // Every field of the simulator's summary is there, plus the backend's own block.
    for (const auto& [key, value] : simulated.summary.items()) EXPECT_TRUE(summary.contains(key)) << key;
    EXPECT_TRUE(summary["mpi"].is_object());
    EXPECT_GT(summary["throughput_steps_per_s"].get<double>(), 0);
    std::ifstream csv(out + "/" + label + "/iterations.csv");
    std::string line;
    int rows = 0;
    std::getline(csv, line);
    EXPECT_EQ(line, "rank,step,start_s,compute_s,comm_s,wait_s");
    while (std::getline(csv, line)) ++rows;
    EXPECT_EQ(rows, kRanks * 6);
  }
  std::filesystem::remove_all(out);
  std::filesystem::remove(file);
}

TEST(MpiBackend, ScenarioForAnotherRankCountIsBadInput) {
  const std::string file = testing::write_temp_json("quorum-mpi-scenario", small_scenario({{"name", "allreduce"}}).dump());
  const std::string out = testing::fresh_path("quorum-mpi-run");
  const auto r = run_mpi_cli(2, "run '" + file + "' --backend mpi --out '" + out + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("platform.nodes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-np 4"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove(file);
}

TEST(MpiBackend, AFailingRankEndsTheJobNamingItsRankAndStep) {
  struct Case {
    std::string kind;
    int exit_code;       // -1: any non-zero status
    std::string expect;  // in stderr
  };
  for (const Case& c : {Case{"hang", 3, "rank 2 is computing in step 3"}, Case{"throw", 3, "rank 2, step 3"},
                        Case{"kill", -1, "rank 2"}}) {
    SCOPED_TRACE(c.kind);
    nlohmann::json s = small_scenario({{"name", "allreduce"}}, 10);
    s["mpi"]["timeout_s"] = 2;
    s["mpi"]["fault"] = {{"rank", 2}, {"step", 3}, {"kind", c.kind}};
    const std::string file = testing::write_temp_json("quorum-mpi-scenario", s.dump());
    const std::string out = testing::fresh_path("quorum-mpi-run");
    const auto r = run_mpi_cli(kRanks, "run '" + file + "' --backend mpi --quiet --out '" + out + "'");
    if (c.exit_code >= 0) {
      EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
    }
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out + "/summary.json"));  // nothing half-written
    std::filesystem::remove_all(out);
    std::filesystem::remove(file);
  }
}

TEST(Validate, CalibratesRunsBothBackendsAndWritesValidationJson) {
  const std::string dir = testing::fresh_path("quorum-validate");
  std::filesystem::create_directories(dir);
  // A quick calibration, which the localhost platform reads.
  const auto cal = run_mpi_cli(kRanks, "calibrate --quick --out '" + dir + "/calibration.json'");
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const auto calibration = read_json(dir + "/calibration.json");
  for (const char* key : {"latency_s", "bandwidth_Bps", "aggregate_bandwidth_Bps", "proxy_step_s"})
    EXPECT_GT(calibration[key].get<double>(), 0) << key;

  nlohmann::json s = small_scenario(nlohmann::json::array({{{"name", "allreduce"}}, {{"name", "local_sgd"}}}), 8);
  s["output"].erase("final_params");
  const std::string file = testing::write_temp_json("quorum-validate-scenario", s.dump());
  const auto r = testing::run_cli("validate '" + file + "' --np 4 --quiet --calibration '" + dir +
                                  "/calibration.json' --out '" + dir + "/out'");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("predicted"), std::string::npos) << r.out;
  const auto v = read_json(dir + "/out/validation.json");
  ASSERT_EQ(v["rows"].size(), 2u);
  for (const auto& row : v["rows"]) {
    for (const char* key : {"measured_steps_per_s", "predicted_steps_per_s", "relative_error", "measured_mean_wait_s",
                            "predicted_mean_wait_s"})
      EXPECT_TRUE(row[key].is_number()) << key << " in " << row.dump();
    const double m = row["measured_steps_per_s"], p = row["predicted_steps_per_s"];
    EXPECT_NEAR(row["relative_error"].get<double>(), (p - m) / m, 1e-12);
  }
  EXPECT_EQ(v["rows"][0]["algorithm"], "allreduce");
  EXPECT_EQ(read_json(dir + "/out/allreduce/measured/summary.json")["backend"], "mpi");
  EXPECT_EQ(read_json(dir + "/out/allreduce/predicted/summary.json")["backend"], "simgrid");

  // --measured: the same comparison from the stored real runs and calibration, with no MPI job (a launcher that
  // fails would fail it): the measured side read back, the prediction made again, both the same to the bit.
  const auto again = testing::run_cli("validate '" + file + "' --np 4 --quiet --measured '" + dir +
                                      "/out' --launcher /bin/false --out '" + dir + "/again'");
  ASSERT_EQ(again.exit_code, 0) << again.err << again.out;
  const auto w = read_json(dir + "/again/validation.json");
  ASSERT_EQ(w["rows"].size(), v["rows"].size());
  for (std::size_t i = 0; i < v["rows"].size(); ++i) EXPECT_EQ(w["rows"][i], v["rows"][i]);
  EXPECT_FALSE(std::filesystem::exists(dir + "/again/allreduce/measured"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/again/allreduce/predicted/summary.json"));
  // Stored runs that are not this scenario's: another rank count, an algorithm never run.
  const auto other_np = testing::run_cli("validate '" + file + "' --np 2 --quiet --measured '" + dir + "/out' --out '" +
                                         dir + "/bad'");
  EXPECT_EQ(other_np.exit_code, 2);
  EXPECT_NE(other_np.err.find("--measured: allreduce: the stored run's ranks is 4, this scenario's 2"),
            std::string::npos)
      << other_np.err;
  const auto missing = testing::run_cli("validate '" + file + "' --np 4 --quiet --measured '" + dir +
                                        "/out' --set 'algorithm={\"name\":\"dpsgd\"}' --out '" + dir + "/bad'");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--measured: dpsgd: no real run stored at"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad/validation.json"));
  std::filesystem::remove_all(dir);
  std::filesystem::remove(file);
}

}  // namespace quorum
