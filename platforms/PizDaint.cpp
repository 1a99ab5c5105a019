// Piz Daint: Cray Aries dragonfly, one rank per node. Constants and their sources: PlatformConfig.hpp.
//
// The dragonfly is built just large enough: 16 routers of 4 nodes per chassis, as many chassis as needed up to 6 per
// group, then as many groups as needed (4096 nodes: 11 groups of 384). Ranks fill routers, chassis and groups in
// order, as a job allocation on consecutive nodes would.
//
// Approximations: SimGrid's dragonfly has one link bandwidth for every level, so all links use the electrical
// 5.25 GB/s; a group pair is joined by one aggregated "blue" link of kBlueLinks times that bandwidth (real Aries
// spreads optical links over many routers). Routing: `adaptive` (the default, as on Aries) is the aggregated-capacity
// model of AdaptiveDragonfly.hpp on the same counts of links; `minimal` is SimGrid's dragonfly, one shortest path per
// node pair.
#include <simgrid/s4u/NetZone.hpp>

#include "platforms/AdaptiveDragonfly.hpp"
#include "platforms/ClusterLeaves.hpp"
#include "platforms/PlatformBuilder.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

std::vector<sg4::Host*> build_piz_daint(const PizDaintConfig& c) {
  constexpr int per_chassis = PizDaintConfig::kNodesPerRouter * PizDaintConfig::kRoutersPerChassis;
  constexpr int per_group = per_chassis * PizDaintConfig::kChassisPerGroup;
  const auto groups = static_cast<unsigned>((c.nodes + per_group - 1) / per_group);
  const auto chassis = groups > 1 ? static_cast<unsigned>(PizDaintConfig::kChassisPerGroup)
                                  : static_cast<unsigned>((c.nodes + per_chassis - 1) / per_chassis);
  if (c.routing == "adaptive") {
    const DragonflyLayout layout{groups,
                                 PizDaintConfig::kBlueLinks,
                                 chassis,
                                 PizDaintConfig::kBlackLinks,
                                 PizDaintConfig::kRoutersPerChassis,
                                 PizDaintConfig::kGreenLinks,
                                 PizDaintConfig::kNodesPerRouter};
    return cluster::first(build_adaptive_dragonfly("piz_daint", layout, c.link_bandwidth_Bps, c.link_latency_s, "nid"),
                          c.nodes);
  }
  std::vector<sg4::Host*> hosts;
  const sg4::DragonflyParams params({groups, PizDaintConfig::kBlueLinks}, {chassis, PizDaintConfig::kBlackLinks},
                                    {PizDaintConfig::kRoutersPerChassis, PizDaintConfig::kGreenLinks},
                                    PizDaintConfig::kNodesPerRouter);
  sg4::create_dragonfly_zone("piz_daint", nullptr, params,
                             {cluster::host_leaf("nid", hosts), cluster::loopback("nid"), {}}, c.link_bandwidth_Bps,
                             c.link_latency_s, sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
  return cluster::first(std::move(hosts), c.nodes);
}

}  // namespace quorum
