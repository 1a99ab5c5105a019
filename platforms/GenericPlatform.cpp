// Platforms from explicit parameters: a flat cluster (star), a fat tree, a dragonfly or a torus, one rank per leaf.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <numeric>

#include "platforms/ClusterLeaves.hpp"
#include "platforms/PlatformBuilder.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

std::vector<sg4::Host*> build_generic(const GenericConfig& c) {
  std::vector<sg4::Host*> hosts;
  const auto policy = sg4::Link::SharingPolicy::SPLITDUPLEX;
  const sg4::ClusterCallbacks callbacks{cluster::host_leaf("node", hosts), cluster::loopback("node"), {}};
  if (c.topology == "cluster") {
    sg4::NetZone* zone = sg4::create_star_zone("cluster");
    for (int r = 0; r < c.nodes; ++r) {
      const std::string name = "node" + std::to_string(r);
      sg4::Host* host = zone->create_host(name, cluster::kHostSpeed)->seal();
      auto* link = zone->create_split_duplex_link(name + "-link", c.bandwidth_Bps)->set_latency(c.latency_s);
      link->seal();
      zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, sg4::LinkInRoute::Direction::UP}},
                      true);
      hosts.push_back(host);
    }
    zone->seal();
  } else if (c.topology == "fat_tree") {
    sg4::create_fatTree_zone("fat_tree", nullptr,
                             sg4::FatTreeParams(static_cast<unsigned>(c.fat_tree_levels), c.fat_tree_down,
                                                c.fat_tree_up, c.fat_tree_parallel),
                             callbacks, c.bandwidth_Bps, c.latency_s, policy)
        ->seal();
  } else if (c.topology == "dragonfly") {
    hosts = build_dragonfly("dragonfly", dragonfly_layout(c), c.routing, c.bandwidth_Bps, c.latency_s, "node");
  } else {  // torus
    std::vector<unsigned long> dims(c.torus_dimensions.begin(), c.torus_dimensions.end());
    sg4::create_torus_zone("torus", nullptr, dims, callbacks, c.bandwidth_Bps, c.latency_s, policy)->seal();
  }
  return cluster::first(std::move(hosts), c.nodes);
}

}  // namespace quorum
