#pragma once
// The links and latency SimGrid sends a message along from one host to another (its fixed route).
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace quorum {

struct HostRoute {
  std::vector<simgrid::s4u::Link*> links;
  double latency_s = 0;
};

inline HostRoute route_between(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  HostRoute r;
  from->route_to(to, r.links, &r.latency_s);
  return r;
}

// A (source, destination) host pair and its key in the per-pair route caches (KeyTable): the two hosts' dense
// indices (SimWorld::host_pair). A route is looked up for every message; hashing the hosts' addresses into a
// node-based map cost a cache miss or two a lookup at thousands of ranks.
struct HostPair {
  simgrid::s4u::Host* from;
  simgrid::s4u::Host* to;
  std::uint64_t key;
  static std::uint64_t key_of(int from_index, int to_index) {
    return (static_cast<std::uint64_t>(from_index) << 32) | static_cast<std::uint32_t>(to_index);
  }
};

// How many host pairs a per-pair route cache holds (DirectFlows', DirectMessages' and RouteSegments' whole routes)
// before it is emptied and filled again as pairs come up. Prague draws new pairs all run long (27,000 a step at
// 16,384 ranks): unbounded, its caches grew by 7.4 MB a step there on Piz Daint's adaptive model, gigabytes in a run
// of a thousand steps. The other algorithms meet a fixed set of pairs, a partner or two a host per level of a
// butterfly, a gossip's graph or WAGMA's groups (counted at 4,096 hosts: 2 to 12.5 pairs a host, about log2(hosts) at
// most), four times fewer than this bound, so their caches never empty. A route is put together the same way each
// time, so emptying a cache changes no result.
inline std::size_t pair_cache_limit(std::size_t hosts) {
  const auto levels = static_cast<std::size_t>(std::bit_width(std::max<std::size_t>(hosts, 2) - 1));  // ceil(log2)
  return std::max<std::size_t>(std::size_t{1} << 16, 4 * hosts * levels);
}

// The bound for the platform built (every cache is made once the platform is).
inline std::size_t platform_pair_cache_limit() {
  return pair_cache_limit(simgrid::s4u::Engine::get_instance()->get_host_count());
}

// CM02's bound on a flow's rate: its narrowest link's bandwidth, and the TCP window over the route's latency
// (network/TCP-gamma / 2 latency; none without latency or gamma).
inline double cm02_rate_bound(double narrowest_Bps, double latency_s, double tcp_gamma) {
  return latency_s > 0 && tcp_gamma > 0 ? std::min(narrowest_Bps, tcp_gamma / (2 * latency_s)) : narrowest_Bps;
}

// What an unshared CM02 flow takes on a route: its latency, then its bytes at the narrowest link's bandwidth,
// bounded by CM02's TCP window (gamma / 2 latency), as SimGrid bounds every flow.
struct UnsharedFlowCost {
  double latency_s = 0;
  double bandwidth_Bps = std::numeric_limits<double>::infinity();
  double duration(double bytes) const {
    return latency_s + (std::isfinite(bandwidth_Bps) ? std::max(bytes, 0.0) / bandwidth_Bps : 0.0);
  }
};

inline UnsharedFlowCost unshared_flow_cost(const HostRoute& route, double tcp_gamma) {
  UnsharedFlowCost c;
  c.latency_s = route.latency_s;
  for (const simgrid::s4u::Link* l : route.links) c.bandwidth_Bps = std::min(c.bandwidth_Bps, l->get_bandwidth());
  c.bandwidth_Bps = cm02_rate_bound(c.bandwidth_Bps, route.latency_s, tcp_gamma);
  return c;
}

inline UnsharedFlowCost unshared_flow_cost(simgrid::s4u::Host* from, simgrid::s4u::Host* to, double tcp_gamma) {
  return unshared_flow_cost(route_between(from, to), tcp_gamma);
}

}  // namespace quorum
