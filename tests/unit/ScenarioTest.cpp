#include "sim/model/Scenario.hpp"
#include "sim/model/Sweep.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace quorum {

namespace {

nlohmann::json minimal() {
  return {{"name", "t"},
          {"platform", {{"name", "piz_daint"}, {"nodes", 8}}},
          {"workload", {{"profile", "resnet50_p100"}, {"iterations", 5}}},
          {"algorithm", {{"name", "local_sgd"}}}};
}

std::string error_field(const nlohmann::json& j) {
  try {
    parse_scenario(j, "");
  } catch (const ScenarioError& e) {
    return e.field();
  }
  return "(no error)";
}

nlohmann::json with(nlohmann::json j, const std::string& assignment) {
  apply_override(j, assignment);
  return j;
}

}  // namespace

TEST(Scenario, MinimalScenarioGetsDocumentedDefaults) {
  const Scenario s = parse_scenario(minimal(), "");
  EXPECT_EQ(s.ranks, 8);
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.parameters, 25'559'081);
  EXPECT_EQ(s.algorithm_params.get_int("tau"), 10);
  EXPECT_EQ(s.algorithm_params.get_string("allreduce"), "ring");
  EXPECT_EQ(s.fidelity, Fidelity::Phase);
  EXPECT_EQ(s.math.model, "none");
  EXPECT_EQ(s.imbalance.kind, "none");
  EXPECT_NEAR(s.compute.mean(), 1 / 1.56, 1e-12);
  // The resolved scenario records the defaults.
  EXPECT_EQ(s.resolved["algorithm"]["tau"], 10);
  EXPECT_EQ(s.resolved["fidelity"], "phase");
  EXPECT_EQ(s.resolved["workload"]["compute"]["kind"], "constant");
}

TEST(Scenario, OverridesSetAnyFieldByDottedPath) {
  nlohmann::json j = minimal();
  apply_override(j, "platform.nodes=256");
  apply_override(j, "algorithm.tau=5");
  apply_override(j, "algorithm.name=allreduce");
  apply_override(j, "imbalance.kind=random_delay");
  apply_override(j, "imbalance.ranks=2");
  apply_override(j, "imbalance.delay_s=0.32");
  EXPECT_EQ(j["platform"]["nodes"], 256);
  EXPECT_EQ(j["algorithm"]["name"], "allreduce");
  EXPECT_THROW(parse_scenario(j, ""), ScenarioError);  // allreduce has no tau
  j["algorithm"].erase("tau");
  const Scenario s = parse_scenario(j, "");
  EXPECT_EQ(s.ranks, 256);
  EXPECT_EQ(s.imbalance.ranks, 2);
  EXPECT_THROW(apply_override(j, "novalue"), ScenarioError);
}

TEST(Scenario, Maverick2CountsOneRankPerGpu) {
  nlohmann::json j = minimal();
  j["platform"] = {{"name", "maverick2"}, {"nodes", 4}};
  EXPECT_EQ(parse_scenario(j, "").ranks, 16);
  j["platform"]["gpus_per_node"] = 2;
  EXPECT_EQ(parse_scenario(j, "").ranks, 8);
}

// One test per class of bad input: each names the field.
TEST(Scenario, UnknownNamesAreErrorsNamingTheField) {
  EXPECT_EQ(error_field(with(minimal(), "platform.name=summit")), "platform.name");
  EXPECT_EQ(error_field(with(minimal(), "algorithm.name=magic_sgd")), "algorithm.name");
  EXPECT_EQ(error_field(with(minimal(), "math.model=resnet")), "math.model");
  EXPECT_EQ(error_field(with(minimal(), "workload.profile=gpt5")), "workload.profile");
  EXPECT_EQ(error_field(with(minimal(), "imbalance.kind=cosmic_rays")), "imbalance.kind");
  EXPECT_EQ(error_field(with(minimal(), "fidelity=packet")), "fidelity");
  EXPECT_EQ(error_field(with(minimal(), "control_messages=free")), "control_messages");
  EXPECT_EQ(error_field(with(minimal(), "algorithm.allreduce=tree")), "algorithm.allreduce");
}

TEST(Scenario, MissingRequiredFields) {
  auto j = minimal();
  j.erase("platform");
  EXPECT_EQ(error_field(j), "platform");
  j = minimal();
  j["workload"].erase("iterations");
  EXPECT_EQ(error_field(j), "workload.iterations");
  j = minimal();
  j["platform"].erase("nodes");
  EXPECT_EQ(error_field(j), "platform.nodes");
  j = minimal();
  j["algorithm"].erase("name");
  EXPECT_EQ(error_field(j), "algorithm.name");
}

TEST(Scenario, WrongTypes) {
  EXPECT_EQ(error_field(with(minimal(), "platform.nodes=\"sixty-four\"")), "platform.nodes");
  EXPECT_EQ(error_field(with(minimal(), "platform.nodes=2.5")), "platform.nodes");
  EXPECT_EQ(error_field(with(minimal(), "seed=\"x\"")), "seed");
  EXPECT_EQ(error_field(with(minimal(), "output.iterations_csv=1")), "output.iterations_csv");
  auto j = minimal();
  j["workload"] = "resnet";
  EXPECT_EQ(error_field(j), "workload");
}

TEST(Scenario, OutOfRangeValues) {
  EXPECT_EQ(error_field(with(minimal(), "platform.nodes=0")), "platform.nodes");
  EXPECT_EQ(error_field(with(minimal(), "platform.nodes=-3")), "platform.nodes");
  EXPECT_EQ(error_field(with(minimal(), "algorithm.tau=0")), "algorithm.tau");
  EXPECT_EQ(error_field(with(minimal(), "workload.iterations=0")), "workload.iterations");
  EXPECT_EQ(error_field(with(minimal(), "math.momentum=1.5")), "math.momentum");
  EXPECT_EQ(error_field(with(minimal(), "flow_solve_window_s=-1e-6")), "flow_solve_window_s");
  EXPECT_EQ(error_field(with(minimal(), "flow_solve_window_s=0.01")), "flow_solve_window_s");
}

// The solve window belongs to quorum's flow model: with SimGrid's communications it is an error, not ignored.
TEST(Scenario, AFlowSolveWindowNeedsDirectDataMessages) {
  EXPECT_EQ(parse_scenario(minimal(), "").flow_solve_window_s, 0.0);
  EXPECT_EQ(parse_scenario(with(minimal(), "flow_solve_window_s=1e-6"), "").flow_solve_window_s, 1e-6);
  EXPECT_EQ(error_field(with(with(minimal(), "flow_solve_window_s=1e-6"), "data_messages=simgrid")),
            "flow_solve_window_s");
  EXPECT_EQ(error_field(with(with(minimal(), "flow_solve_window_s=1e-6"), "control_messages=shared")),
            "flow_solve_window_s");
  EXPECT_EQ(parse_scenario(with(with(minimal(), "flow_solve_window_s=0"), "data_messages=simgrid"), "")
                .flow_solve_window_s,
            0.0);
}

TEST(Scenario, UnknownFieldsAreNotSilentlyIgnored) {
  EXPECT_EQ(error_field(with(minimal(), "platform.nodez=8")), "platform.nodez");
  EXPECT_EQ(error_field(with(minimal(), "algorithm.group_sizee=4")), "algorithm.group_sizee");
  EXPECT_EQ(error_field(with(minimal(), "seeed=3")), "seeed");
}

TEST(Scenario, MalformedTraceFile) {
  const auto path = std::filesystem::temp_directory_path() / "quorum-scenario-bad-trace.csv";
  std::ofstream(path) << "rank,step,duration\n0,0,0.5\n0,x,0.5\n";
  auto j = minimal();
  j["workload"]["compute"] = {{"kind", "trace"}, {"file", path.string()}};
  EXPECT_EQ(error_field(j), "workload.compute.file");
}

TEST(Scenario, UnreadableDatasetPath) {
  auto j = with(minimal(), "math.model=softmax");
  apply_override(j, "math.dataset_dir=/nonexistent/fashion");
  EXPECT_EQ(error_field(j), "math.dataset_dir");
}

// The shipped quickstart lists allreduce and local_sgd (tau 10): --set addresses its entries as the errors name them.
TEST(Scenario, OverridesAddressTheEntriesOfAnAlgorithmList) {
  const nlohmann::json quickstart = read_scenario_json(std::string(QUORUM_SOURCE_DIR) + "/scenarios/quickstart.json");
  auto each_parses = [](const nlohmann::json& j) {
    for (std::size_t i = 0; i < j["algorithm"].size(); ++i) {
      nlohmann::json one = j;
      one["algorithm"] = j["algorithm"][i];
      EXPECT_NO_THROW(parse_scenario(one, "")) << i;
    }
  };
  nlohmann::json j = quickstart;
  apply_override(j, "algorithm[1].tau=5");
  EXPECT_EQ(j["algorithm"][1]["tau"], 5);
  EXPECT_FALSE(j["algorithm"][0].contains("tau"));
  each_parses(j);
  j = quickstart;
  apply_override(j, "algorithm.tau=7");  // only local_sgd takes tau
  EXPECT_EQ(j["algorithm"][1]["tau"], 7);
  EXPECT_FALSE(j["algorithm"][0].contains("tau"));
  each_parses(j);
  apply_override(j, "algorithm.allreduce=rabenseifner");  // a common parameter: every entry
  EXPECT_EQ(j["algorithm"][0]["allreduce"], "rabenseifner");
  EXPECT_EQ(j["algorithm"][1]["allreduce"], "rabenseifner");
  // algorithm.name replaces the list by one algorithm, the listed entry of that name keeping its parameters.
  nlohmann::json named = quickstart;
  apply_override(named, "algorithm.name=local_sgd");
  EXPECT_EQ(named["algorithm"], (nlohmann::json{{"name", "local_sgd"}, {"tau", 10}}));
  apply_override(named, "algorithm.tau=3");  // one algorithm again: plain dotted path
  EXPECT_EQ(named["algorithm"]["tau"], 3);

  auto field_of = [&quickstart](const std::string& assignment) {
    nlohmann::json k = quickstart;
    try {
      apply_override(k, assignment);
    } catch (const ScenarioError& e) {
      return e.field();
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(field_of("algorithm.group_size=4"), "algorithm.group_size");  // neither entry takes it
  EXPECT_EQ(field_of("algorithm[2].tau=5"), "algorithm[2]");
  EXPECT_EQ(field_of("algorithm[x].tau=5"), "algorithm[x].tau");
  EXPECT_EQ(field_of("algorithm[1]tau=5"), "algorithm[1]tau");
  nlohmann::json single = minimal();
  EXPECT_THROW(apply_override(single, "algorithm[0].tau=5"), ScenarioError);
}

TEST(Scenario, LocalhostReadsItsCalibrationFile) {
  const auto dir = std::filesystem::temp_directory_path();
  std::ofstream(dir / "quorum-cal.json") << R"({"latency_s": 2e-6, "bandwidth_Bps": 3e9})";
  auto j = minimal();
  j["platform"] = {{"name", "localhost"}, {"nodes", 4}, {"calibration", "quorum-cal.json"}};
  const Scenario s = parse_scenario(j, dir.string());
  const auto& c = std::get<LocalhostConfig>(s.platform);
  EXPECT_DOUBLE_EQ(c.latency_s, 2e-6);
  EXPECT_DOUBLE_EQ(c.bandwidth_Bps, 3e9);
  j["platform"]["calibration"] = "missing.json";
  EXPECT_EQ(error_field(j), "platform.calibration");
}

TEST(Scenario, LocalhostReadsTheReductionRateAndNativeAllreduceOfItsCalibration) {
  const auto dir = std::filesystem::temp_directory_path();
  std::ofstream(dir / "quorum-cal-native.json") << R"({"latency_s": 2e-6, "bandwidth_Bps": 3e9, "reduce_Bps": 4e9,
      "native_allreduce": [{"ranks": 2, "bytes": 4096, "seconds": 1e-5}, {"ranks": 4, "bytes": 4096, "seconds": 2e-5}]})";
  auto j = minimal();
  j["platform"] = {{"name", "localhost"}, {"nodes", 4}, {"calibration", "quorum-cal-native.json"}};
  const Scenario s = parse_scenario(j, dir.string());
  const auto& c = std::get<LocalhostConfig>(s.platform);
  EXPECT_DOUBLE_EQ(c.reduce_Bps, 4e9);
  EXPECT_DOUBLE_EQ(c.native_allreduce.seconds(4, 4096), 2e-5);
  // A real run without MPI_Allreduce: the prediction must not charge it either.
  j["mpi"] = {{"native_allreduce", false}};
  EXPECT_TRUE(std::get<LocalhostConfig>(parse_scenario(j, dir.string()).platform).native_allreduce.empty());
  // Written out explicitly, a bad point is named.
  auto e = minimal();
  e["platform"] = {{"name", "localhost"}, {"nodes", 4},
                   {"native_allreduce", {{{"ranks", 1}, {"bytes", 4096}, {"seconds", 1e-5}}}}};
  EXPECT_EQ(error_field(e), "platform.native_allreduce[0].ranks");
  e["platform"]["native_allreduce"] = {{{"ranks", 2}, {"bytes", 4096}, {"seconds", 1e-5}},
                                       {{"ranks", 2}, {"bytes", 4096}, {"seconds", 2e-5}}};
  EXPECT_EQ(error_field(e), "platform.native_allreduce");
}

TEST(Scenario, LocalhostReadsTheCoresItsRanksShare) {
  const auto dir = std::filesystem::temp_directory_path();
  std::ofstream(dir / "quorum-cal-cores.json") << R"({"latency_s": 2e-6, "bandwidth_Bps": 3e9, "cores": 2})";
  auto j = minimal();
  j["platform"] = {{"name", "localhost"}, {"nodes", 4}, {"calibration", "quorum-cal-cores.json"}};
  const auto& calibrated = std::get<LocalhostConfig>(parse_scenario(j, dir.string()).platform);
  EXPECT_EQ(calibrated.cores, 2);
  EXPECT_EQ(shared_cores(calibrated), 2);
  // Inline; at least as many cores as ranks means nothing is shared; a negative count is named.
  j["platform"] = {{"name", "localhost"}, {"nodes", 4}, {"cores", 8}};
  const auto& inline_cores = std::get<LocalhostConfig>(parse_scenario(j, dir.string()).platform);
  EXPECT_EQ(inline_cores.cores, 8);
  EXPECT_EQ(shared_cores(inline_cores), 0);
  j["platform"]["cores"] = -1;
  EXPECT_EQ(error_field(j), "platform.cores");
  std::ofstream(dir / "quorum-cal-cores.json") << R"({"latency_s": 2e-6, "bandwidth_Bps": 3e9, "cores": 0})";
  j["platform"] = {{"name", "localhost"}, {"nodes", 4}, {"calibration", (dir / "quorum-cal-cores.json").string()}};
  EXPECT_NE(error_field(j).find("cores"), std::string::npos);
}

TEST(Scenario, ShippedScenariosParse) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(QUORUM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    nlohmann::json j = read_scenario_json(entry.path().string());
    if (!j.contains("platform")) continue;
    // Every point: each entry of an algorithm list, and each point of a sweep block.
    const SweepSpec spec = j.contains("sweep") ? parse_sweep_block(j["sweep"]) : SweepSpec{};
    for (const auto& point : expand_sweep(j, spec)) {
      SCOPED_TRACE(point.id);
      EXPECT_NO_THROW(parse_scenario(point.scenario, entry.path().parent_path().string()));
    }
  }
}

}  // namespace quorum
