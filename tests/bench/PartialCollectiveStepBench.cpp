// Wall time per simulated step of eager-SGD (solo allreduce) and WAGMA-SGD (wait-avoiding group allreduce, S =
// sqrt(P), tau = 10), timing only, on Piz Daint with 2 random ranks delayed 320 ms per step. As for AllreduceStep,
// 1 and 1 + k steps run in separate processes and the difference per step is reported.
//
//   build/tests/bench/quorum_bench --benchmark_filter=PartialCollectiveStep
#include <benchmark/benchmark.h>

#include <chrono>

#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/Simulation.hpp"

namespace {

double simulate_wall_seconds(int nodes, const std::string& algorithm, int steps) {
  const nlohmann::json scenario = {
      {"name", "bench"},
      {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
      {"workload", {{"profile", "resnet50_p100"}, {"iterations", steps}}},
      {"imbalance", {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.32}}},
      {"algorithm", {{"name", algorithm}}},
      {"output", {{"progress", false}, {"iterations_csv", false}}}};
  const auto start = std::chrono::steady_clock::now();
  const auto child = quorum::run_in_child([&] {
    quorum::simulate(quorum::parse_scenario(scenario, ""));
    return 0;
  });
  if (child.exit_code != 0) throw std::runtime_error("simulation failed: " + child.error_text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void PartialCollectiveStep(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const std::string algorithm = state.range(1) == 0 ? "eager_sgd" : "wagma";
  const int extra = nodes >= 1024 ? 5 : 20;
  for (auto _ : state) {
    const double one = simulate_wall_seconds(nodes, algorithm, 1);
    const double many = simulate_wall_seconds(nodes, algorithm, 1 + extra);
    state.SetIterationTime(std::max(many - one, 0.0) / extra);
  }
  state.SetLabel(algorithm + " P=" + std::to_string(nodes));
}

}  // namespace

BENCHMARK(PartialCollectiveStep)
    ->ArgNames({"P", "wagma"})
    ->Args({64, 0})
    ->Args({256, 0})
    ->Args({1024, 0})
    ->Args({64, 1})
    ->Args({256, 1})
    ->Args({1024, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
