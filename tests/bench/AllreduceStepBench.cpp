// Wall time per simulated step of Allreduce-SGD, timing only (math off), on Piz Daint, for both collective
// fidelities. Each measurement simulates 1 step and 1 + k steps in separate processes (SimGrid: one engine per
// process) and reports the difference per step, so platform construction and process start-up are excluded.
//
//   build/tests/bench/quorum_bench --benchmark_filter=AllreduceStep
#include <benchmark/benchmark.h>

#include "tests/bench/StepTiming.hpp"

namespace {

void AllreduceStep(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const bool chunk = state.range(1) != 0;
  // Chunk fidelity at P=1024 costs tens of seconds per step: measure fewer steps there.
  const int extra = chunk ? (nodes >= 1024 ? 1 : nodes >= 256 ? 2 : 5) : 10;
  for (auto _ : state)
    state.SetIterationTime(quorum::bench::wall_seconds_per_step(nodes, {{"name", "allreduce"}}, extra,
                                                                chunk ? "chunk" : "phase"));
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
