#pragma once
// The links and latency SimGrid sends a message along from one host to another (its fixed route).
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cmath>
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
