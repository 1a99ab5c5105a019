// The local machine, calibrated: a star in which each rank has one split-duplex link of the measured bandwidth and
// half the measured latency, so a message between two ranks costs latency + size / bandwidth, as measured by
// `quorum calibrate`. With an aggregate bandwidth, every transfer also crosses one shared link of that capacity (the
// star removes the duplicate, so a message crosses it once): concurrent transfers then share the machine's memory
// system as they do for real. With fewer cores than ranks, one more host stands for the machine's cores (no route: only
// executions run on it), so that the CPU work quorum charges is shared among the ranks doing it at once.
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
  sg4::Link* shared = nullptr;
  if (c.aggregate_bandwidth_Bps > 0) shared = zone->create_link("memory-system", c.aggregate_bandwidth_Bps)->seal();
  for (int r = 0; r < c.ranks; ++r) {
    const std::string name = "rank" + std::to_string(r);
    sg4::Host* host = zone->create_host(name, cluster::kHostSpeed)->seal();
    auto* link = zone->create_split_duplex_link(name + "-link", c.bandwidth_Bps)->set_latency(c.latency_s / 2);
    link->seal();
    std::vector<sg4::LinkInRoute> route = {{link, sg4::LinkInRoute::Direction::UP}};
    if (shared) route.emplace_back(shared);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, route, true);
    hosts.push_back(host);
  }
  if (const int cores = shared_cores(c); cores > 0)
    zone->create_host(kSharedCoresHost, cluster::kHostSpeed)->set_core_count(cores)->seal();
  zone->seal();
  return hosts;
}

}  // namespace quorum
