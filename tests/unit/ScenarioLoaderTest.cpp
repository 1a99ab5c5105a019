// The one path from a scenario file to its runs (read, list-aware overrides, expansion, parsing), the platform
// catalog that `quorum list` prints and the parser checks, and the result table both backends print.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/model/PlatformCatalog.hpp"
#include "sim/model/ResultsTable.hpp"
#include "sim/model/ScenarioLoader.hpp"

namespace quorum {

namespace {

const std::string kQuickstart = std::string(QUORUM_SOURCE_DIR) + "/scenarios/quickstart.json";

std::string load_error_field(const std::vector<std::string>& overrides) {
  try {
    load_scenario_runs(kQuickstart, overrides);
  } catch (const ScenarioError& e) {
    return e.field();
  }
  return "(no error)";
}

}  // namespace

TEST(ScenarioLoader, ExpandsTheListAndAppliesListAwareOverrides) {
  const auto runs = load_scenario_runs(kQuickstart, {"algorithm.tau=5", "platform.nodes=8"});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].label, "allreduce");
  EXPECT_EQ(runs[1].label, "local_sgd");
  EXPECT_EQ(runs[1].scenario.algorithm_params.get_int("tau"), 5);
  for (const auto& r : runs) EXPECT_EQ(r.scenario.ranks, 8);
  // By index, as errors print it; algorithm.name replaces the list by one run.
  EXPECT_EQ(load_scenario_runs(kQuickstart, {"algorithm[1].tau=7"})[1].scenario.algorithm_params.get_int("tau"), 7);
  const auto one = load_scenario_runs(kQuickstart, {"algorithm.name=wagma"});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].scenario.algorithm, "wagma");
}

TEST(ScenarioLoader, ErrorsNameTheEntryOfTheList) {
  EXPECT_EQ(load_error_field({"algorithm[0].tau=5"}), "algorithm[0].tau");
  EXPECT_EQ(load_error_field({"algorithm[1].tau=0"}), "algorithm[1].tau");
  EXPECT_EQ(load_error_field({"platform.nodes=0"}), "platform.nodes");
  try {
    load_scenario_runs(kQuickstart, {"algorithm[1].tau=0"});
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("local_sgd"), std::string::npos) << e.what();
  }
}

TEST(ScenarioLoader, RelativeFilesResolveAgainstTheScenariosFolder) {
  const auto dir = std::filesystem::temp_directory_path() / "quorum-loader-test";
  std::filesystem::create_directories(dir / "traces");
  std::ofstream(dir / "traces" / "steps.csv") << "duration\n0.5\n0.7\n";
  std::ofstream(dir / "s.json") << R"({"name": "rel", "platform": {"name": "localhost", "nodes": 2},
    "workload": {"profile": "resnet50_p100", "iterations": 2,
                 "compute": {"kind": "replay", "file": "traces/steps.csv"}},
    "algorithm": {"name": "allreduce"}})";
  const auto runs = load_scenario_runs((dir / "s.json").string(), {});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].scenario.compute.mean(), 0.6);
  std::filesystem::remove_all(dir);
}

// What `quorum list platforms` shows is what the parser applies: a platform given only its required fields resolves
// every listed field to the listed default.
TEST(PlatformCatalog, ListedDefaultsAreTheParsedDefaults) {
  for (const auto& info : platform_catalog()) {
    if (info.name == "xml") continue;  // needs a file; its one default is checked through generic's
    SCOPED_TRACE(info.name);
    nlohmann::json block = {{"name", info.name}, {"nodes", 4}};
    Fields fields(block, "platform");
    std::string name;
    parse_platform(fields, "", name);
    EXPECT_EQ(name, info.name);
    for (const auto& f : info.fields) {
      if (!f.default_value) continue;
      if (info.name == "generic" && f.name != "topology" && f.name != "bandwidth_Bps" && f.name != "latency_s" &&
          f.name != "network_model")
        continue;  // topology-specific fields are read only for their topology
      SCOPED_TRACE(f.name);
      ASSERT_TRUE(fields.resolved().contains(f.name));
      EXPECT_EQ(fields.resolved()[f.name], *f.default_value);
    }
    fields.finish();
  }
}

TEST(PlatformCatalog, ChecksComeFromTheFieldDescriptions) {
  auto error_of = [](nlohmann::json block) {
    Fields fields(block, "platform");
    std::string name;
    try {
      parse_platform(fields, "", name);
      fields.finish();
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error_of({{"name", "piz_daint"}, {"nodes", 9000}}).find("platform.nodes"), std::string::npos);
  EXPECT_NE(error_of({{"name", "maverick2"}, {"nodes", 2}, {"ib_bandwidth_Bps", 0}}).find("platform.ib_bandwidth_Bps"),
            std::string::npos);
  const std::string topology = error_of({{"name", "generic"}, {"nodes", 2}, {"topology", "ring"}});
  EXPECT_NE(topology.find("platform.topology"), std::string::npos) << topology;
  EXPECT_NE(topology.find("fat_tree"), std::string::npos) << topology;
  EXPECT_NE(error_of({{"name", "generic"}, {"nodes", 2}, {"topology", "fat_tree"}}).find("platform.down"),
            std::string::npos);
  const std::string routing = error_of({{"name", "piz_daint"}, {"nodes", 4}, {"routing", "ugal"}});
  EXPECT_NE(routing.find("platform.routing"), std::string::npos) << routing;
  EXPECT_NE(routing.find("adaptive"), std::string::npos) << routing;
  const std::string not_dragonfly =
      error_of({{"name", "generic"}, {"nodes", 4}, {"topology", "torus"}, {"routing", "adaptive"}});
  EXPECT_NE(not_dragonfly.find("platform.routing"), std::string::npos) << not_dragonfly;
  EXPECT_NE(not_dragonfly.find("dragonfly"), std::string::npos) << not_dragonfly;
  // Descriptions say the type, range and default.
  const auto& piz = platform_catalog().front();
  EXPECT_EQ(describe_platform_field(piz.fields[0]), "integer in [1, 8192], required");
}

TEST(ResultsTable, TheTimeColumnSaysWhetherItWasSimulatedOrMeasured) {
  const nlohmann::json simulated = {{"backend", "simgrid"}, {"throughput_steps_per_s", 2.0}, {"sim_time_s", 5.0},
                                    {"final_test_accuracy", 0.5}};
  nlohmann::json measured = simulated;
  measured["backend"] = "mpi";
  const std::string sim_table = format_results_table({"a"}, {simulated});
  const std::string mpi_table = format_results_table({"a"}, {measured});
  EXPECT_NE(sim_table.find("sim time (s)"), std::string::npos);
  EXPECT_NE(mpi_table.find("measured (s)"), std::string::npos);
  EXPECT_NE(sim_table.find("50.00%"), std::string::npos);
  EXPECT_NE(format_results_csv({"a"}, {simulated}).find("a,,,2.0,5.0,0.5"), std::string::npos);
}

}  // namespace quorum
