// The scenario's "mpi" block: defaults, the automatic timeout, the fault injection's checks, and clear errors.
#include <gtest/gtest.h>

#include "sim/model/Scenario.hpp"

namespace quorum {

namespace {
nlohmann::json base() {
  return {{"platform", {{"name", "localhost"}, {"nodes", 4}}},
          {"workload", {{"profile", "hyperplane"}, {"iterations", 10}, {"compute", {{"kind", "constant"}, {"seconds", 0.5}}}}},
          {"imbalance", {{"kind", "random_delay"}, {"ranks", 1}, {"delay_s", 1.0}}},
          {"algorithm", {{"name", "allreduce"}}}};
}

std::string error_field(const nlohmann::json& j) {
  try {
    parse_scenario(j, "");
  } catch (const ScenarioError& e) {
    return e.field();
  }
  return "";
}
}  // namespace

TEST(MpiSettings, DefaultsAndTheAutomaticTimeoutAreResolved) {
  const Scenario s = parse_scenario(base(), "");
  EXPECT_EQ(s.mpi.compute, "emulate");
  EXPECT_EQ(s.mpi.message_bytes, "logical");
  EXPECT_TRUE(s.mpi.native_allreduce);
  EXPECT_EQ(s.mpi.device, "cpu");
  EXPECT_EQ(s.mpi.fault.rank, -1);
  // 120 s + 5 x 10 steps x (0.5 s + 1 s delay)
  EXPECT_DOUBLE_EQ(s.mpi.timeout_s, 120 + 5 * 10 * 1.5);
  EXPECT_DOUBLE_EQ(s.resolved["mpi"]["timeout_s"].get<double>(), s.mpi.timeout_s);
  EXPECT_FALSE(s.write_final_params);
}

TEST(MpiSettings, ExplicitValuesAreKept) {
  auto j = base();
  j["mpi"] = {{"compute", "real"}, {"message_bytes", "payload"}, {"native_allreduce", false}, {"timeout_s", 30},
              {"poll_interval_s", 2e-4}, {"fault", {{"rank", 3}, {"step", 9}, {"kind", "hang"}}}};
  j["output"] = {{"final_params", true}};
  const Scenario s = parse_scenario(j, "");
  EXPECT_FALSE(s.mpi.emulate());
  EXPECT_FALSE(s.mpi.pad_to_logical());
  EXPECT_FALSE(s.mpi.native_allreduce);
  EXPECT_EQ(s.mpi.timeout_s, 30);
  EXPECT_EQ(s.mpi.poll_interval_s, 2e-4);
  EXPECT_EQ(s.mpi.fault.rank, 3);
  EXPECT_EQ(s.mpi.fault.step, 9);
  EXPECT_TRUE(s.write_final_params);
}

TEST(MpiSettings, BadValuesNameTheField) {
  auto j = base();
  j["mpi"] = {{"compute", "fast"}};
  EXPECT_EQ(error_field(j), "mpi.compute");
  j["mpi"] = {{"device", "tpu"}};
  EXPECT_EQ(error_field(j), "mpi.device");
  j["mpi"] = {{"timeout_s", "soon"}};
  EXPECT_EQ(error_field(j), "mpi.timeout_s");
  j["mpi"] = {{"timeout_s", 0}};
  EXPECT_EQ(error_field(j), "mpi.timeout_s");
  j["mpi"] = {{"fault", {{"rank", 4}, {"step", 0}, {"kind", "hang"}}}};
  EXPECT_EQ(error_field(j), "mpi.fault.rank");
  j["mpi"] = {{"fault", {{"rank", 0}, {"step", 10}, {"kind", "hang"}}}};
  EXPECT_EQ(error_field(j), "mpi.fault.step");
  j["mpi"] = {{"fault", {{"rank", 0}, {"step", 1}, {"kind", "explode"}}}};
  EXPECT_EQ(error_field(j), "mpi.fault.kind");
  j["mpi"] = {{"ranks", 4}};
  EXPECT_EQ(error_field(j), "mpi.ranks");
}

TEST(MpiSettings, LocalhostReadsTheAggregateBandwidthOfItsCalibration) {
  auto j = base();
  j["platform"] = {{"name", "localhost"}, {"nodes", 4}, {"latency_s", 1e-5}, {"bandwidth_Bps", 2e9},
                   {"aggregate_bandwidth_Bps", 6e9}};
  const Scenario s = parse_scenario(j, "");
  EXPECT_EQ(std::get<LocalhostConfig>(s.platform).aggregate_bandwidth_Bps, 6e9);
}

}  // namespace quorum
