// The machine's latency of a dependent load against the memory it ranges over: why the simulator's wall time per
// step grows faster than the ranks. A step of a timing-only run touches a few tens of KB of state per rank (actors'
// stacks and descriptors, messages, queues), scattered over the heap, and runs the ranks one after the other, so at
// thousands of ranks almost every rank's state is cold again when its turn comes. Once that state outgrows the last
// cache level (and the TLB's reach), each of those accesses costs what this benchmark measures at that size.
//
// Each iteration follows a random cycle through every cache line of `MB` megabytes (one load depends on the previous
// one, so nothing overlaps), as a pointer chase over scattered objects does. `huge:1` asks the kernel for
// transparent huge pages on the block (madvise), which tells a TLB-bound curve (it moves) from a cache-bound one.
//
//   build/tests/bench/quorum_bench --benchmark_filter=MemoryLatency
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kLine = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kLoadsPerIteration = 1 << 20;

// One slot per cache line; a slot holds the index of the next line to visit.
struct alignas(kLine) Line {
  std::size_t next;
};

struct FreeDeleter {
  void operator()(Line* p) const { std::free(p); }
};
using Block = std::unique_ptr<Line[], FreeDeleter>;

// `lines` lines aligned to a huge page, with transparent huge pages asked for if `huge`.
Block allocate(std::size_t lines, bool huge) {
  const std::size_t bytes = (lines * sizeof(Line) + kHugePage - 1) / kHugePage * kHugePage;
  auto* p = static_cast<Line*>(std::aligned_alloc(kHugePage, bytes));
  if (p == nullptr) throw std::bad_alloc();
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);  // a hint: without THP the block keeps small pages
  return Block(p);
}

// A single cycle through all lines in random order (Sattolo's algorithm), so the chase visits every line.
Block random_cycle(std::size_t lines, bool huge) {
  std::vector<std::size_t> order(lines);
  for (std::size_t i = 0; i < lines; ++i) order[i] = i;
  std::mt19937_64 rng(42);
  for (std::size_t i = lines - 1; i > 0; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  Block memory = allocate(lines, huge);
  for (std::size_t i = 0; i < lines; ++i) memory[order[i]].next = order[(i + 1) % lines];
  return memory;
}

void MemoryLatency(benchmark::State& state) {
  const auto megabytes = static_cast<std::size_t>(state.range(0));
  const bool huge = state.range(1) != 0;
  const std::size_t lines = megabytes * 1024 * 1024 / kLine;
  const Block memory = random_cycle(lines, huge);
  std::size_t at = 0;
  for (std::size_t i = 0; i < lines; ++i) at = memory[at].next;  // touch every page first
  for (auto _ : state) {
    for (std::size_t i = 0; i < kLoadsPerIteration; ++i) at = memory[at].next;
    benchmark::DoNotOptimize(at);
  }
  // Seconds per load (the rate of loads, inverted; printed with an SI prefix, e.g. 150ns).
  state.counters["per_load"] = benchmark::Counter(static_cast<double>(state.iterations()) * kLoadsPerIteration,
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(std::to_string(megabytes) + " MB" + (huge ? ", huge pages asked" : ""));
}

}  // namespace

BENCHMARK(MemoryLatency)
    ->ArgNames({"MB", "huge"})
    ->ArgsProduct({benchmark::CreateRange(1, 512, 2), {0, 1}})
    ->Unit(benchmark::kMillisecond);
