// Wall time per simulated step of the gossip, asynchronous and Prague algorithms, timing only (math off), on Piz
// Daint with the WAGMA imbalance (2 random ranks delayed 320 ms per step). As in AllreduceStepBench: 1 step and
// 1 + k steps in separate processes, the difference per step reported.
//
//   build/tests/bench/quorum_bench --benchmark_filter=GossipStep
#include <benchmark/benchmark.h>

#include "tests/bench/StepTiming.hpp"

namespace {

const nlohmann::json kAlgorithms[] = {
    {{"name", "dpsgd"}},
    {{"name", "sgp"}, {"neighbors", 2}},
    {{"name", "adpsgd"}},
    {{"name", "prague"}, {"mode", "smart"}},
    {{"name", "prague"}, {"mode", "random"}},
    {{"name", "async_ps"}},
};

void GossipStep(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const nlohmann::json& algorithm = kAlgorithms[state.range(1)];
  const int extra = 40;
  for (auto _ : state) state.SetIterationTime(quorum::bench::wall_seconds_per_step(nodes, algorithm, extra));
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
