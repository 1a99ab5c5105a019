// Piz Daint: Cray Aries dragonfly, one rank per node. Constants and their sources: PlatformConfig.hpp.
//
// The dragonfly is built just large enough (dragonfly_layout in PlatformConfig.cpp). Ranks fill routers, chassis and
// groups in order, as a job allocation on consecutive nodes would.
//
// Approximations: SimGrid's dragonfly has one link bandwidth for every level, so all links use the electrical
// 5.25 GB/s; a group pair is joined by one aggregated "blue" link of kBlueLinks times that bandwidth (real Aries
// spreads optical links over many routers). Routing: `adaptive` (the default, as on Aries) is the aggregated-capacity
// model of AdaptiveDragonfly.hpp on the same counts of links; `minimal` is SimGrid's dragonfly, one shortest path per
// node pair.
#include "platforms/ClusterLeaves.hpp"
#include "platforms/PlatformBuilder.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

std::vector<sg4::Host*> build_piz_daint(const PizDaintConfig& c) {
  return cluster::first(
      build_dragonfly("piz_daint", dragonfly_layout(c), c.routing, c.link_bandwidth_Bps, c.link_latency_s, "nid"),
      c.nodes);
}

}  // namespace quorum
