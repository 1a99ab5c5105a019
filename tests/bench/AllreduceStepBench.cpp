// Wall time per simulated step of Allreduce-SGD, timing only (math off), on Piz Daint, for both collective
// fidelities. Each measurement simulates 1 step and 1 + k steps in separate processes (SimGrid: one engine per
// process) and reports the difference per step, so platform construction and process start-up are excluded.
//
//   build/tests/bench/quorum_bench --benchmark_filter=AllreduceStep
#include <benchmark/benchmark.h>

#include <chrono>

#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/Simulation.hpp"

namespace {

double simulate_wall_seconds(int nodes, bool chunk, int steps) {
  const nlohmann::json scenario = {
      {"name", "bench"},
      {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
      {"workload", {{"profile", "resnet50_p100"}, {"iterations", steps}}},
      {"imbalance", {{"kind", "random_delay"}, {"ranks", 2}, {"delay_s", 0.32}}},
      {"algorithm", {{"name", "allreduce"}}},
      {"fidelity", chunk ? "chunk" : "phase"},
      {"output", {{"progress", false}, {"iterations_csv", false}}}};
  const auto start = std::chrono::steady_clock::now();
  const auto child = quorum::run_in_child([&] {
    quorum::simulate(quorum::parse_scenario(scenario, ""));
    return 0;
  });
  if (child.exit_code != 0) throw std::runtime_error("simulation failed: " + child.error_text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void AllreduceStep(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const bool chunk = state.range(1) != 0;
  // Chunk fidelity at P=1024 costs tens of seconds per step: measure fewer steps there.
  const int extra = chunk ? (nodes >= 1024 ? 1 : nodes >= 256 ? 2 : 5) : 10;
  for (auto _ : state) {
    const double one = simulate_wall_seconds(nodes, chunk, 1);
    const double many = simulate_wall_seconds(nodes, chunk, 1 + extra);
    state.SetIterationTime(std::max(many - one, 0.0) / extra);
  }
  state.SetLabel(std::string(chunk ? "chunk" : "phase") + " P=" + std::to_string(nodes));
}

}  // namespace

BENCHMARK(AllreduceStep)
    ->ArgNames({"P", "chunk"})
    ->Args({64, 0})
    ->Args({256, 0})
    ->Args({1024, 0})
    ->Args({64, 1})
    ->Args({256, 1})
    ->Args({1024, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
