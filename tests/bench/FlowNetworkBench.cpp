// Wall time per event of quorum's flow model (sim/model/FlowNetwork.hpp) under the traffic that makes it expensive:
// Prague's groups on an adaptively routed dragonfly, where every flow between two groups crosses its source group's
// outgoing pool and its destination group's incoming pool, so all of them are coupled into one max-min system.
// The shape is the aggregated Aries model's (platforms/AdaptiveDragonfly.hpp): node links of B, per group an
// outgoing and an incoming pool of (G - 1) x 8 B, a pair link per ordered group pair of 8 B x G / 2; every flow
// bounded by its node link. Flows run between random nodes of distinct groups, `flows_in_flight_per_100_nodes` of
// them, and each one that ends is replaced by a new one from the same source (as a ring's next chunk would be).
// At 43 groups the two densities give solves of about 1,400 and 4,500 classes, around Prague's at 16,384 ranks
// (about 2,300 classes on average).
//
//   build/tests/bench/quorum_bench --benchmark_filter=FlowNetworkEvent
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "sim/model/FlowNetwork.hpp"

namespace {

using quorum::FlowNetwork;

struct Dragonfly {
  unsigned groups = 0, nodes_per_group = 0;
  std::vector<FlowNetwork::LinkId> up, down, out, in, pair;
};

Dragonfly build(FlowNetwork& net, unsigned groups, unsigned nodes_per_group) {
  constexpr double kNodeBps = 5.25e9, kGroupLinks = 8;
  Dragonfly d{groups, nodes_per_group, {}, {}, {}, {}, {}};
  for (unsigned n = 0; n < groups * nodes_per_group; ++n) {
    d.up.push_back(net.add_link(kNodeBps));
    d.down.push_back(net.add_link(kNodeBps));
  }
  for (unsigned g = 0; g < groups; ++g) {
    d.out.push_back(net.add_link((groups - 1) * kGroupLinks * kNodeBps));
    d.in.push_back(net.add_link((groups - 1) * kGroupLinks * kNodeBps));
  }
  for (unsigned p = 0; p < groups * groups; ++p) d.pair.push_back(net.add_link(kGroupLinks * kNodeBps * groups / 2));
  return d;
}

void FlowNetworkEvent(benchmark::State& state) {
  const auto groups = static_cast<unsigned>(state.range(0));
  const auto flows_per_100_nodes = static_cast<unsigned>(state.range(1));
  constexpr unsigned kNodesPerGroup = 384;  // Piz Daint's: 6 chassis x 16 routers x 4 nodes
  constexpr double kBytes = 25e6, kLatency = 2e-6;
  FlowNetwork net;
  const Dragonfly d = build(net, groups, kNodesPerGroup);
  const unsigned nodes = groups * kNodesPerGroup;
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<unsigned> any_node(0, nodes - 1);
  std::uniform_real_distribution<double> size(0.5, 1.5);
  std::vector<unsigned> source_of;  // by flow id
  double now = 0;
  const auto start_from = [&](unsigned src) {
    unsigned dst = any_node(rng);
    while (dst / kNodesPerGroup == src / kNodesPerGroup) dst = any_node(rng);
    const unsigned a = src / kNodesPerGroup, b = dst / kNodesPerGroup;
    const FlowNetwork::LinkId route[] = {d.up[src], d.out[a], d.pair[a * groups + b], d.in[b], d.down[dst]};
    const FlowNetwork::FlowId id = net.start(now, route, kBytes * size(rng), kLatency, 1.0, 5.25e9);
    if (id >= source_of.size()) source_of.resize(id + 1);
    source_of[id] = src;
  };
  for (unsigned i = 0; i < nodes * flows_per_100_nodes / 100; ++i) start_from(i % nodes);
  std::vector<FlowNetwork::FlowId> ended;
  const auto step = [&] {
    now = net.next_event();
    ended.clear();
    net.advance(now, ended);
    for (const FlowNetwork::FlowId f : ended) start_from(source_of[f]);
  };
  for (unsigned i = 0; i < nodes; ++i) step();  // past the start, to a steady state
  const std::uint64_t solves_before = net.solves();
  for (auto _ : state) step();
  state.counters["solves/event"] =
      static_cast<double>(net.solves() - solves_before) / static_cast<double>(state.iterations());
  state.counters["classes"] = static_cast<double>(net.classes());
  state.SetLabel("G=" + std::to_string(groups) + " P=" + std::to_string(nodes));
}

}  // namespace

// 11 groups: Piz Daint at 4,096 nodes; 43: the 16,384-node dragonfly of the README's scale table.
BENCHMARK(FlowNetworkEvent)
    ->ArgNames({"groups", "flows_in_flight_per_100_nodes"})
    ->ArgsProduct({{11, 43}, {25, 50}})
    ->Unit(benchmark::kMicrosecond);
