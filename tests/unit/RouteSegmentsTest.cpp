// Routes put together from cached pieces (sim/simgrid/RouteSegments.hpp) against SimGrid's own route lookup, the
// reference: the same links in the same order and the same latency, for every host pair of small platforms with
// and without recorded gateways, and for sampled pairs of Piz Daint at 1,536 nodes.
#include <gtest/gtest.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "platforms/AdaptiveDragonfly.hpp"
#include "platforms/PlatformBuilder.hpp"
#include "sim/simgrid/RouteSegments.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {
namespace {

namespace sg4 = simgrid::s4u;

// Compares RouteSegments' route with Host::route_to for the pairs (every ordered pair when `samples` is 0, else that
// many random ones); returns the mismatches and how many routes were put together from pieces.
// `pair_limit` > 0: the whole routes kept (RouteSegments::limit_pairs), and the most ever kept is returned too.
nlohmann::json compare_routes(const std::vector<sg4::Host*>& hosts, int samples, std::size_t pair_limit = 0) {
  RouteSegments segments;
  if (pair_limit > 0) segments.limit_pairs(pair_limit);
  std::size_t most_whole_routes = 0;
  int pairs = 0, link_mismatches = 0, latency_mismatches = 0, composed = 0;
  double worst_latency_diff = 0;
  const auto check = [&](int a, int b) {
    const HostPair pair{hosts[static_cast<std::size_t>(a)], hosts[static_cast<std::size_t>(b)], HostPair::key_of(a, b)};
    const HostRoute reference = route_between(pair.from, pair.to);
    const HostRoute pieces = segments.links(pair);
    ++pairs;
    if (segments.route(pair).count > 1) ++composed;
    most_whole_routes = std::max(most_whole_routes, segments.whole_route_count());
    if (pieces.links != reference.links) ++link_mismatches;
    const double diff = std::abs(pieces.latency_s - reference.latency_s);
    worst_latency_diff = std::max(worst_latency_diff, diff / reference.latency_s);
    if (diff > 1e-15 * reference.latency_s) ++latency_mismatches;
  };
  const int n = static_cast<int>(hosts.size());
  if (samples == 0) {
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) check(a, b);
  } else {
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> host(0, n - 1);
    for (int i = 0; i < samples; ++i) check(host(rng), host(rng));
  }
  return {{"pairs", pairs},
          {"link_mismatches", link_mismatches},
          {"latency_mismatches", latency_mismatches},
          {"worst_latency_diff", worst_latency_diff},
          {"composed", composed},
          {"segments", segments.piece_count() + segments.whole_route_count()},
          {"most_whole_routes", most_whole_routes}};
}

// In a child with a fresh engine: the platform `build` makes (after setting its network model), compared as
// compare_routes does.
nlohmann::json routes_compared(const std::function<std::vector<sg4::Host*>()>& build, int samples,
                               std::size_t pair_limit = 0) {
  const testing::EngineChildResult child =
      testing::in_engine_child([&] { return compare_routes(build(), samples, pair_limit); });
  EXPECT_TRUE(child.ok) << child.error;
  return child.value;
}

// 3 groups of 2 chassis of 4 routers of 2 nodes (AdaptiveDragonflyTest's layout).
nlohmann::json small_dragonfly(PoolRouting pools) {
  return routes_compared(
      [pools] {
        configure_network_model(GenericConfig{});
        return build_adaptive_dragonfly("df", {3, 2, 2, 2, 4, 1, 2}, 1e9, 1e-6, "n", pools);
      },
      0);
}

// Maverick2 at 8 nodes (its fat tree records no gateways).
std::vector<sg4::Host*> maverick2_of_8_nodes() {
  Maverick2Config config;
  config.nodes = 8;
  configure_network_model(config);
  return build_maverick2(config);
}

}  // namespace

// Every pair of nodes on different routers is three pieces (up to the gateway, across, down), the others (one
// router, or one node) SimGrid's whole route; all of them have SimGrid's links in its order and its latency.
TEST(RouteSegments, RoutesOfTheAdaptiveDragonflyAreSimGridsForEveryPair) {
  for (const PoolRouting pools : {PoolRouting::Binding, PoolRouting::All}) {
    const nlohmann::json r = small_dragonfly(pools);
    ASSERT_FALSE(r.is_null());
    EXPECT_EQ(r["pairs"], 48 * 48);
    EXPECT_EQ(r["link_mismatches"], 0);
    EXPECT_EQ(r["latency_mismatches"], 0) << "worst relative difference " << r["worst_latency_diff"];
    EXPECT_EQ(r["composed"], 48 * 46);  // all but the 48 pairs of a node with itself and 48 of router neighbours
    EXPECT_LT(r["segments"].get<int>(), 48 * 48 / 4);
  }
}

// Piz Daint at 1,536 nodes (4 groups): random pairs, nearly all of them across groups.
TEST(RouteSegments, RoutesOfPizDaintAreSimGridsForSampledPairs) {
  const nlohmann::json r = routes_compared(
      [] {
        PizDaintConfig config;
        config.nodes = 1536;
        configure_network_model(config);
        return build_piz_daint(config);
      },
      3000);
  ASSERT_FALSE(r.is_null());
  EXPECT_EQ(r["link_mismatches"], 0);
  EXPECT_EQ(r["latency_mismatches"], 0) << "worst relative difference " << r["worst_latency_diff"];
  EXPECT_GT(r["composed"].get<int>(), 2900);
}

// A platform that records no gateways (Maverick2's fat tree): every route is SimGrid's whole route, looked up once.
TEST(RouteSegments, WithoutGatewaysEveryRouteIsOnePiece) {
  const nlohmann::json r = routes_compared(
      maverick2_of_8_nodes,
      0);
  ASSERT_FALSE(r.is_null());
  EXPECT_EQ(r["link_mismatches"], 0);
  EXPECT_EQ(r["latency_mismatches"], 0);
  EXPECT_EQ(r["composed"], 0);
  EXPECT_EQ(r["segments"], r["pairs"]);
}

// A bounded cache of whole routes (Prague meets new pairs all run long): emptied each time it holds 5, every route is
// still SimGrid's, those of pairs met again after it was emptied included (3,000 random pairs of its hosts).
TEST(RouteSegments, WholeRoutesKeptUpToTheLimitAndPutTogetherAgainTheSame) {
  const nlohmann::json r = routes_compared(
      maverick2_of_8_nodes,
      3000, 5);
  ASSERT_FALSE(r.is_null());
  EXPECT_EQ(r["pairs"], 3000);
  EXPECT_EQ(r["link_mismatches"], 0);
  EXPECT_EQ(r["latency_mismatches"], 0);
  EXPECT_EQ(r["most_whole_routes"], 5);
}

}  // namespace quorum
