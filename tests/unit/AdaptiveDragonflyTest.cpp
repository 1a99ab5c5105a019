#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platforms/AdaptiveDragonfly.hpp"
#include "platforms/PlatformBuilder.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {
namespace {

namespace sg4 = simgrid::s4u;

// 3 groups of 2 chassis of 4 routers of 2 nodes, 1 GB/s links. Green pools (3 GB/s per router of 2 nodes) and black
// pools (8 GB/s per chassis of 8 nodes: exactly its nodes' links) never bind; blue pools (4 GB/s per group of 16
// nodes) do.
DragonflyLayout small_layout() { return {3, 2, 2, 2, 4, 1, 2}; }
constexpr double kBandwidth = 1e9, kLatency = 1e-6;

struct Flow {
  int from, to;
  double start_s, bytes;
};

// Many overlapping flows between random nodes, most of them leaving their group.
std::vector<Flow> random_flows(int nodes, int count) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> node(0, nodes - 1);
  std::uniform_real_distribution<double> start(0, 0.05), bytes(1e6, 5e7);
  std::vector<Flow> flows;
  while (static_cast<int>(flows.size()) < count) {
    const int a = node(rng), b = node(rng);
    if (a != b) flows.push_back({a, b, start(rng), bytes(rng)});
  }
  return flows;
}

// In a child: the dragonfly with `pools`, every flow on its own mailbox; returns each flow's end time and the link
// counts of two routes (two routers of one chassis; two groups).
nlohmann::json run_flows(PoolRouting pools, const std::vector<Flow>& flows) {
  const testing::EngineChildResult child = testing::in_engine_child([&] {
    configure_network_model(GenericConfig{});
    const std::vector<sg4::Host*> hosts = build_adaptive_dragonfly("df", small_layout(), kBandwidth, kLatency, "n", pools);
    std::vector<double> ends(flows.size(), -1);
    for (std::size_t i = 0; i < flows.size(); ++i) {
      const Flow f = flows[i];
      sg4::Mailbox* box = sg4::Mailbox::by_name("flow" + std::to_string(i));
      sg4::Actor::create("send", hosts[static_cast<std::size_t>(f.from)], [f, box] {
        sg4::this_actor::sleep_for(f.start_s);
        static int payload = 0;
        box->put(&payload, static_cast<std::uint64_t>(f.bytes));
      });
      sg4::Actor::create("recv", hosts[static_cast<std::size_t>(f.to)], [&ends, i, box] {
        box->get<int>();
        ends[i] = sg4::Engine::get_clock();
      });
    }
    // Midway, the busiest blue pool's load over its capacity.
    double blue_load = 0;
    sg4::Actor::create("watch", hosts[0], [&blue_load] {
      sg4::this_actor::sleep_for(0.06);
      for (int g = 0; g < 3; ++g)
        for (const char* side : {"-out", "-in"}) {
          const sg4::Link* pool = sg4::Link::by_name("df" + std::string(side) + std::to_string(g));
          blue_load = std::max(blue_load, pool->get_usage() / pool->get_bandwidth());
        }
    });
    sg4::Engine::get_instance()->run();
    nlohmann::json out;
    out["ends"] = ends;
    out["blue_load"] = blue_load;
    for (const auto& [a, b] : {std::pair{0, 2}, std::pair{0, 40}}) {
      std::vector<sg4::Link*> links;
      double latency = 0;
      hosts[static_cast<std::size_t>(a)]->route_to(hosts[static_cast<std::size_t>(b)], links, &latency);
      out["route_links"].push_back(links.size());
      out["route_latency"].push_back(latency);
    }
    return out;
  });
  EXPECT_TRUE(child.ok) << child.error;
  return child.value;
}

}  // namespace

// Leaving out the pools that never bind changes no flow's end (the nodes' links bind first), under traffic heavy
// enough that the kept blue pools do bind; routes inside a chassis then cross only their nodes' links and the pair's
// link, and every route keeps its latency.
TEST(AdaptiveDragonfly, PoolsThatNeverBindCanBeLeftOutWithoutChangingAnyFlow) {
  const std::vector<Flow> flows = random_flows(48, 240);
  const nlohmann::json binding = run_flows(PoolRouting::Binding, flows);
  const nlohmann::json all = run_flows(PoolRouting::All, flows);
  ASSERT_FALSE(binding.is_null());
  ASSERT_FALSE(all.is_null());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const double a = binding["ends"][i].get<double>(), b = all["ends"][i].get<double>();
    ASSERT_GT(a, 0) << "flow " << i << " did not end";
    EXPECT_NEAR(a, b, 1e-9 * b) << "flow " << i;
  }
  // A blue pool is full midway: the shares are not just the nodes' links'.
  EXPECT_GT(binding["blue_load"].get<double>(), 0.999);
  EXPECT_GT(all["blue_load"].get<double>(), 0.999);
  EXPECT_EQ(binding["route_links"][0].get<int>(), 3);  // node up, pair, node down
  EXPECT_EQ(all["route_links"][0].get<int>(), 5);      // and the two routers' pools
  EXPECT_EQ(binding["route_links"][1], all["route_links"][1]);
  EXPECT_EQ(binding["route_latency"], all["route_latency"]);
}

}  // namespace quorum
