// Maverick2 GTX nodes: a fat tree of nodes, each node a star of its GPUs on PCIe behind one FDR InfiniBand adapter.
// Constants and their sources: PlatformConfig.hpp.
//
// Fat tree: up to 18 nodes hang off one leaf switch; beyond that, leaf switches connect to 2 spine switches with 9
// parallel links each (full bisection, 36-port switches). A GPU reaches another GPU of its node over two PCIe hops;
// a GPU of another node over PCIe, the node's single IB link, the switches, and PCIe again, so the 4 GPUs of a node
// share one IB link, as on the real machine.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "platforms/ClusterLeaves.hpp"
#include "platforms/PlatformBuilder.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

std::vector<sg4::Host*> build_maverick2(const Maverick2Config& c) {
  std::vector<sg4::Host*> hosts(static_cast<std::size_t>(c.nodes) * static_cast<std::size_t>(c.gpus_per_node),
                                nullptr);
  const int g = c.gpus_per_node;
  auto node = [&hosts, &c, g](sg4::NetZone* parent, const std::vector<unsigned long>&, unsigned long id) {
    std::string name = "c";
    name += std::to_string(id);  // (not "c" + to_string: GCC 12 raises a false -Wrestrict there)
    sg4::NetZone* zone = sg4::create_star_zone(name);
    zone->set_parent(parent);
    auto* nic = zone->create_router(name + "-hca");
    for (int k = 0; k < g; ++k) {
      const std::string gpu = name + "-gpu" + std::to_string(k);
      sg4::Host* host = zone->create_host(gpu, cluster::kHostSpeed)->seal();
      auto* pcie = zone->create_split_duplex_link(gpu + "-pcie", c.pcie_bandwidth_Bps)->set_latency(c.pcie_latency_s);
      pcie->seal();
      zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{pcie, sg4::LinkInRoute::Direction::UP}},
                      true);
      const std::size_t rank = id * static_cast<std::size_t>(g) + static_cast<std::size_t>(k);
      if (rank < hosts.size()) hosts[rank] = host;
    }
    zone->seal();
    return std::make_pair(zone->get_netpoint(), nic);
  };

  const auto leaf_ports = static_cast<unsigned>(Maverick2Config::kLeafPorts);
  const auto nodes = static_cast<unsigned>(c.nodes);
  const sg4::FatTreeParams params =
      nodes <= leaf_ports ? sg4::FatTreeParams(1, {nodes}, {1}, {1})
                          : sg4::FatTreeParams(2, {leaf_ports, (nodes + leaf_ports - 1) / leaf_ports}, {1, 2}, {1, 9});
  sg4::create_fatTree_zone("maverick2", nullptr, params, {node, {}, {}}, c.ib_bandwidth_Bps, c.ib_latency_s,
                           sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
  return hosts;
}

}  // namespace quorum
