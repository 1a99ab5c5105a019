// The local machine, calibrated: a star in which each rank has one split-duplex link of the measured bandwidth and
// half the measured latency, so a message between two ranks costs latency + size / bandwidth, as measured by
// `quorum calibrate`. With an aggregate bandwidth, every transfer also crosses one shared link of that capacity (the
// star removes the duplicate, so a message crosses it once): concurrent transfers then share the machine's memory
// system as they do for real. With fewer cores than ranks, one more host stands for the machine's cores (no route: only
// executions run on it), so that the CPU work quorum charges is shared among the ranks doing it at once.
//
// A cluster's calibration (ranks_per_node) gives one such star per node, and the nodes hang off a switch, each by one
// split-duplex link of its adapter's bandwidth: a message between nodes crosses the sender's rank link and memory
// system, both adapters and the receiver's; the adapters carry the rest of the one-way inter-node latency.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>

#include "platforms/ClusterLeaves.hpp"
#include "platforms/PlatformBuilder.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

namespace {

// One node's ranks (first .. first + count - 1) in a star zone; its cores host when the ranks outnumber them.
// (No parent: the platform's root zone.)
sg4::NetZone* build_node(const LocalhostConfig& c, sg4::NetZone* parent, const std::string& name, int first, int count,
                         int node, std::vector<sg4::Host*>& hosts) {
  sg4::NetZone* zone = sg4::create_star_zone(name);
  if (parent != nullptr) zone->set_parent(parent);
  sg4::Link* shared = nullptr;
  if (c.aggregate_bandwidth_Bps > 0) shared = zone->create_link(name + "-memory-system", c.aggregate_bandwidth_Bps)->seal();
  for (int r = first; r < first + count; ++r) {
    const std::string host_name = "rank" + std::to_string(r);
    sg4::Host* host = zone->create_host(host_name, cluster::kHostSpeed)->seal();
    auto* link = zone->create_split_duplex_link(host_name + "-link", c.bandwidth_Bps)->set_latency(c.latency_s / 2);
    link->seal();
    std::vector<sg4::LinkInRoute> route = {{link, sg4::LinkInRoute::Direction::UP}};
    if (shared) route.emplace_back(shared);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, route, true);
    hosts.push_back(host);
  }
  if (const int cores = shared_cores(c); cores > 0)
    zone->create_host(shared_cores_host(node), cluster::kHostSpeed)->set_core_count(cores)->seal();
  return zone;
}

}  // namespace

std::string shared_cores_host(int node) { return "node" + std::to_string(node) + "-cores"; }

std::vector<sg4::Host*> build_localhost(const LocalhostConfig& c) {
  std::vector<sg4::Host*> hosts;
  const int nodes = localhost_nodes(c), per_node = localhost_ranks_per_node(c);
  if (nodes == 1) {
    build_node(c, nullptr, "localhost", 0, c.ranks, 0, hosts)->seal();
    return hosts;
  }
  sg4::NetZone* cluster = sg4::create_star_zone("localhost");
  // The adapters carry what the inter-node latency adds to the intra-node one, half on each side.
  const double adapter_latency = std::max(0.0, c.inter_node_latency_s - c.latency_s) / 2;
  for (int k = 0; k < nodes; ++k) {
    const std::string name = "node" + std::to_string(k);
    sg4::NetZone* node = build_node(c, cluster, name, k * per_node, per_node, k, hosts);
    auto* gateway = node->create_router(name + "-adapter");
    node->seal();
    auto* adapter = cluster->create_split_duplex_link(name + "-adapter", c.adapter_bandwidth_Bps)
                        ->set_latency(adapter_latency);
    adapter->seal();
    cluster->add_route(node->get_netpoint(), nullptr, gateway, nullptr,
                       {{adapter, sg4::LinkInRoute::Direction::UP}}, true);
  }
  cluster->seal();
  return hosts;
}

}  // namespace quorum
