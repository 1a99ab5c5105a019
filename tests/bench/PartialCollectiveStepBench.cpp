// Wall time per simulated step of eager-SGD (solo allreduce) and WAGMA-SGD (wait-avoiding group allreduce, S =
// sqrt(P), tau = 10), timing only, on Piz Daint with 2 random ranks delayed 320 ms per step. As for AllreduceStep,
// 1 and 1 + k steps run in separate processes and the difference per step is reported.
//
//   build/tests/bench/quorum_bench --benchmark_filter=PartialCollectiveStep
#include <benchmark/benchmark.h>

#include "tests/bench/StepTiming.hpp"

namespace {

void PartialCollectiveStep(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const std::string algorithm = state.range(1) == 0 ? "eager_sgd" : "wagma";
  const int extra = nodes >= 1024 ? 5 : 20;
  for (auto _ : state) state.SetIterationTime(quorum::bench::wall_seconds_per_step(nodes, {{"name", algorithm}}, extra));
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
