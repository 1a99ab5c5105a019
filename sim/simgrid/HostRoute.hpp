#pragma once
// The links and latency SimGrid sends a message along from one host to another (its fixed route).
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

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

}  // namespace quorum
