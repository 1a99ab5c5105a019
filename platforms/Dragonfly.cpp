// A dragonfly under either routing: SimGrid's own zone (minimal: one shortest path per node pair) or the
// aggregated-capacity model of adaptive routing (AdaptiveDragonfly.hpp). Piz Daint and the generic dragonfly both
// build through here, so a routing is chosen in one place.
#include <simgrid/s4u/NetZone.hpp>

#include "platforms/AdaptiveDragonfly.hpp"
#include "platforms/ClusterLeaves.hpp"
#include "platforms/PlatformBuilder.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

std::vector<sg4::Host*> build_dragonfly(const std::string& name, const DragonflyLayout& layout,
                                        const std::string& routing, double bandwidth_Bps, double latency_s,
                                        const std::string& host_prefix) {
  if (routing == "adaptive") return build_adaptive_dragonfly(name, layout, bandwidth_Bps, latency_s, host_prefix);
  std::vector<sg4::Host*> hosts;
  const sg4::DragonflyParams params({layout.groups, layout.group_links}, {layout.chassis, layout.chassis_links},
                                    {layout.routers, layout.router_links}, layout.nodes_per_router);
  sg4::create_dragonfly_zone(name, nullptr, params,
                             {cluster::host_leaf(host_prefix, hosts), cluster::loopback(host_prefix), {}},
                             bandwidth_Bps, latency_s, sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
  return hosts;
}

}  // namespace quorum
