// The local machine, calibrated: a star in which each rank has one split-duplex link of the measured bandwidth and
// half the measured latency, so a message between two ranks costs latency + size / bandwidth, as measured by
// `quorum calibrate`.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "platforms/ClusterLeaves.hpp"
#include "platforms/PlatformBuilder.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

std::vector<sg4::Host*> build_localhost(const LocalhostConfig& c) {
  sg4::NetZone* zone = sg4::create_star_zone("localhost");
  std::vector<sg4::Host*> hosts;
  for (int r = 0; r < c.ranks; ++r) {
    const std::string name = "rank" + std::to_string(r);
    sg4::Host* host = zone->create_host(name, cluster::kHostSpeed)->seal();
    auto* link = zone->create_split_duplex_link(name + "-link", c.bandwidth_Bps)->set_latency(c.latency_s / 2);
    link->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}}, true);
    hosts.push_back(host);
  }
  zone->seal();
  return hosts;
}

}  // namespace quorum
