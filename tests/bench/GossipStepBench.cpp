// Wall time per simulated step of the gossip, asynchronous and Prague algorithms, timing only (math off), on Piz
// Daint with the WAGMA imbalance (2 random ranks delayed 320 ms per step). As in AllreduceStepBench: 1 step and
// 1 + k steps in separate processes, the difference per step reported.
//
//   build/tests/bench/quorum_bench --benchmark_filter=GossipStep
#include <benchmark/benchmark.h>

#include <chrono>

#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/Simulation.hpp"

namespace {

const nlohmann::json kAlgorithms[] = {
    {{"name", "dpsgd"}},
    {{"name", "sgp"}, {"neighbors", 2}},
    {{"name", "adpsgd"}},
    {{"name", "prague"}, {"mode", "smart"}},
    {{"name", "prague"}, {"mode", "random"}},
    {{"name", "async_ps"}},
};

double wall_seconds(int nodes, const nlohmann::json& algorithm, int steps) {
  const nlohmann::json scenario = {
      {"name", "bench"},
      {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
      {"workload", {{"profile", "resnet50_p100"}, {"iterations", steps}}},
      {"imbalance", {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.32}}},
      {"algorithm", algorithm},
      {"output", {{"progress", false}, {"iterations_csv", false}}}};
  const auto start = std::chrono::steady_clock::now();
  const auto child = quorum::run_in_child([&] {
    quorum::simulate(quorum::parse_scenario(scenario, ""));
    return 0;
  });
  if (child.exit_code != 0) throw std::runtime_error("simulation failed: " + child.error_text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void GossipStep(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const nlohmann::json& algorithm = kAlgorithms[state.range(1)];
  const int extra = 40;
  for (auto _ : state) {
    const double one = wall_seconds(nodes, algorithm, 1);
    const double many = wall_seconds(nodes, algorithm, 1 + extra);
    state.SetIterationTime(std::max(many - one, 0.0) / extra);
  }
  std::string label = algorithm["name"].get<std::string>();
  if (algorithm.contains("mode")) label.append(" ").append(algorithm["mode"].get<std::string>());
  label.append(" P=").append(std::to_string(nodes));
  state.SetLabel(label);
}

}  // namespace

BENCHMARK(GossipStep)
    ->ArgNames({"P", "algorithm"})
    ->ArgsProduct({{64, 256}, {0, 1, 2, 3, 4, 5}})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
