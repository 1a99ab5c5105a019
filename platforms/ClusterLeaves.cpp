#include "platforms/ClusterLeaves.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace quorum::cluster {

namespace sg4 = simgrid::s4u;

std::function<sg4::ClusterCallbacks::ClusterNetPointCb> host_leaf(const std::string& prefix,
                                                                  std::vector<sg4::Host*>& hosts) {
  return [prefix, &hosts](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    sg4::Host* host = zone->create_host(prefix + std::to_string(id), kHostSpeed)->seal();
    if (hosts.size() <= id) hosts.resize(id + 1, nullptr);
    hosts[id] = host;
    return std::make_pair(host->get_netpoint(), static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
  };
}

std::function<sg4::ClusterCallbacks::ClusterLinkCb> loopback(const std::string& prefix) {
  return [prefix](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    return zone->create_link(prefix + "loopback" + std::to_string(id), kLoopbackBandwidth)->set_latency(0)->seal();
  };
}

std::vector<sg4::Host*> first(std::vector<sg4::Host*> hosts, int n) {
  hosts.resize(static_cast<std::size_t>(n));
  return hosts;
}

}  // namespace quorum::cluster
