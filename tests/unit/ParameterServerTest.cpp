// Asynchronous parameter server: servers do not train, every rank ends with the same model, sharding splits the
// model, the loss falls, and bad server counts are refused.
#include <gtest/gtest.h>

#include "sim/model/Scenario.hpp"
#include "tests/support/ScenarioHarness.hpp"

namespace quorum {

using testing::simulate_scenario;

namespace {
nlohmann::json ps_scenario(int nodes, int servers, int iterations) {
  return {{"name", "ps"},
          {"seed", 5},
          {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
          {"workload", {{"profile", "hyperplane"}, {"iterations", iterations}, {"compute", {{"kind", "constant"}, {"seconds", 0.2}}}}},
          {"imbalance", {{"kind", "random_delay"}, {"ranks", 1}, {"delay_s", 0.1}}},
          {"algorithm", {{"name", "async_ps"}, {"servers", servers}}},
          {"math", {{"model", "hyperplane"}, {"batch", 32}, {"dim", 64}, {"train_size", 2048}, {"test_size", 256}, {"lr", 0.01}}},
          {"output", {{"progress", false}}}};
}
}  // namespace

TEST(AsyncParameterServer, ServersDoNotTrainAndEveryRankEndsWithTheServersModel) {
  for (int servers : {1, 2}) {
    SCOPED_TRACE(std::to_string(servers) + " servers");
    const auto r = simulate_scenario(ps_scenario(6, servers, 30));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.summary["ranks"].get<int>(), 6);
    EXPECT_EQ(r.summary["training_ranks"].get<int>(), 6 - servers);
    for (const auto& p : r.final_params) EXPECT_EQ(p, r.final_params[0]);
    EXPECT_LT(r.summary["final_loss"].get<double>(), 0.5 * r.summary["initial_loss"].get<double>());
    // Every worker update reaches a server: (workers x iterations) updates, spread over the servers' shards.
    const auto& h = r.summary["histograms"]["async_ps.staleness"];
    std::int64_t updates = 0;
    for (const auto& [bucket, count] : h.items()) updates += count.get<std::int64_t>();
    EXPECT_EQ(updates, (6 - servers) * 30 * servers);
  }
}

TEST(AsyncParameterServer, OneServerIsTheBottleneckAtScale) {
  // 63 workers pushing a ResNet-50 gradient through one server's link (the eager-SGD paper's Table 2 setting): the
  // link carries 63 x 102 MB per step of every worker, 1.23 s, more than a worker's 0.64 s of computation.
  nlohmann::json s = {{"name", "ps"},
                      {"platform", {{"name", "piz_daint"}, {"nodes", 64}}},
                      {"workload", {{"profile", "resnet50_p100"}, {"iterations", 10}}},
                      {"algorithm", {{"name", "async_ps"}}},
                      {"output", {{"progress", false}}}};
  const auto one = simulate_scenario(s);
  ASSERT_TRUE(one.ok) << one.error;
  const double bound = 1.0 / (63 * 25'559'081.0 * 4 / 5.25e9);
  EXPECT_LT(one.summary["aggregate_steps_per_s"].get<double>(), 1.02 * bound);
  s["algorithm"]["servers"] = 4;  // sharding over 4 server links relieves it
  const auto four = simulate_scenario(s);
  ASSERT_TRUE(four.ok) << four.error;
  EXPECT_GT(four.summary["aggregate_steps_per_s"].get<double>(), 1.5 * one.summary["aggregate_steps_per_s"].get<double>());
}

TEST(AsyncParameterServer, TooManyServersAreRefusedNamingTheField) {
  try {
    parse_scenario(ps_scenario(4, 4, 2), "");
    FAIL() << "4 servers of 4 ranks were accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.field(), "algorithm.servers");
  }
}

}  // namespace quorum
