#include "platforms/AdaptiveDragonfly.hpp"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>

#include "platforms/ClusterLeaves.hpp"
#include "platforms/ZoneGateway.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

double adaptive_pair_capacity(unsigned units, double direct_Bps) {
  return direct_Bps * std::max(1.0, units / 2.0);
}

namespace {

constexpr auto kUp = sg4::LinkInRoute::Direction::UP;
constexpr auto kDown = sg4::LinkInRoute::Direction::DOWN;
constexpr auto kNone = sg4::LinkInRoute::Direction::NONE;

sg4::Link* one_way_link(sg4::NetZone* zone, const std::string& name, double bandwidth, double latency) {
  return zone->create_link(name, bandwidth)->set_latency(latency)->seal();
}

// One level of the hierarchy: n peer units (sub-zones) in a full zone, every unit with an outgoing and an incoming
// pool, every ordered pair with its own link. Traffic leaving the level goes through a hub: a sub-zone holding one
// router (SimGrid's routed zones join sub-zones only to sub-zones), which is the level's gateway one level up.
struct Unit {
  sg4::NetZone* zone = nullptr;
  NetPoint* gateway = nullptr;
};

Unit build_hub(sg4::NetZone* parent, const std::string& name) {
  sg4::NetZone* zone = sg4::create_star_zone(name)->set_parent(parent);
  NetPoint* router = zone->create_router(name + "-router");
  zone->add_route(router, nullptr, nullptr, nullptr, {}, true);
  record_zone_gateway(*zone, *router);
  zone->seal();
  return {zone, router};
}

struct LevelLinks {
  double direct_Bps = 0;    // capacity of the direct links between two units
  double pool_latency = 0;  // on each of the pools
  double pair_latency = 0;  // on the pair link
  double unit_Bps = 0;      // the most all nodes of a unit can send (or receive) at once: nodes times node link
};

// A pool that can carry everything its unit's nodes can send (or receive) at once never limits a flow: the nodes'
// links reach their capacity first, so the max-min shares are the same without it. SimGrid's solver re-solves every
// flow coupled to a starting or ending one through shared links, and pools that every flow of a unit crosses couple
// all the traffic of the machine. So where the pools never bind (and carry no latency, so no route gets shorter),
// routes between two units of the level cross only their pair's link, and traffic leaving the level crosses a
// per-unit uplink and downlink of the pool's capacity (SimGrid forbids a route without links).
bool pools_never_bind(double pool_Bps, const LevelLinks& level) {
  return level.pool_latency == 0 && pool_Bps >= level.unit_Bps;
}

// The links of one level in `parent` (a full zone) of n units: each unit's outgoing and incoming pool, and a link per
// ordered pair (pair[a * n + b]).
struct LevelWiring {
  std::vector<sg4::Link*> out, in, pair;
  bool pooled_pairs = true;  // routes between two units cross their pools too
};

LevelWiring create_level_links(sg4::NetZone* parent, unsigned n, const LevelLinks& level, PoolRouting pools) {
  const std::string& name = parent->get_name();
  const double pool = std::max(1u, n - 1) * level.direct_Bps;
  LevelWiring w;
  w.pooled_pairs = pools == PoolRouting::All || !pools_never_bind(pool, level);
  for (unsigned u = 0; u < n; ++u) {
    w.out.push_back(one_way_link(parent, name + "-out" + std::to_string(u), pool, level.pool_latency));
    w.in.push_back(one_way_link(parent, name + "-in" + std::to_string(u), pool, level.pool_latency));
  }
  const double pair = adaptive_pair_capacity(n, level.direct_Bps);
  w.pair.resize(static_cast<std::size_t>(n) * n, nullptr);
  for (unsigned a = 0; a < n; ++a)
    for (unsigned b = 0; b < n; ++b)
      if (a != b)
        w.pair[a * n + b] = one_way_link(parent, name + "-pair" + std::to_string(a) + "-" + std::to_string(b), pair,
                                         level.pair_latency);
  return w;
}

// Fills `parent` with the routes between its units and between each unit and the parent's hub (none at the top).
void connect_level(sg4::NetZone* parent, const Unit* hub, const std::vector<Unit>& units, const LevelWiring& w) {
  const auto n = static_cast<unsigned>(units.size());
  for (unsigned u = 0; u < n && hub != nullptr; ++u) {
    parent->add_route(units[u].zone->get_netpoint(), hub->zone->get_netpoint(), units[u].gateway, hub->gateway,
                      {{w.out[u], kNone}}, false);
    parent->add_route(hub->zone->get_netpoint(), units[u].zone->get_netpoint(), hub->gateway, units[u].gateway,
                      {{w.in[u], kNone}}, false);
  }
  for (unsigned a = 0; a < n; ++a)
    for (unsigned b = 0; b < n; ++b) {
      if (a == b) continue;
      sg4::Link* link = w.pair[a * n + b];
      std::vector<sg4::LinkInRoute> route{{link, kNone}};
      if (w.pooled_pairs) route = {{w.out[a], kNone}, {link, kNone}, {w.in[b], kNone}};
      parent->add_route(units[a].zone->get_netpoint(), units[b].zone->get_netpoint(), units[a].gateway,
                        units[b].gateway, route, false);
    }
}

// A full zone with the models of `machine`, not yet attached to it. SimGrid checks every new link's and host's name
// against every zone attached to the root, one zone at a time: built attached, a machine of Z zones and L links
// costs O(Z L) lookups (at 16,384 nodes, 4,700 zones and 100,000 links: 18 s of a 25-second start). The groups are
// built apart, so that their names are checked against the root alone, and join it once all are complete.
sg4::NetZone* detached_zone(const std::string& name, const sg4::NetZone* machine) {
  sg4::NetZone* zone = sg4::create_full_zone(name);
  auto* impl = zone->get_impl();
  const auto* root = machine->get_impl();
  impl->set_network_model(root->get_network_model());
  impl->set_cpu_pm_model(root->get_cpu_pm_model());
  impl->set_cpu_vm_model(root->get_cpu_vm_model());
  impl->set_disk_model(root->get_disk_model());
  impl->set_host_model(root->get_host_model());
  return zone;
}

// A router: a star of its nodes' split-duplex links, each node with a fast loopback, and a gateway.
Unit build_router(sg4::NetZone* parent, const std::string& name, unsigned first_id, const DragonflyLayout& layout,
                  double bandwidth, double latency, const std::string& prefix, std::vector<sg4::Host*>& hosts) {
  sg4::NetZone* zone = sg4::create_star_zone(name)->set_parent(parent);
  NetPoint* gateway = zone->create_router(name + "-gw");
  zone->add_route(gateway, nullptr, nullptr, nullptr, {}, true);
  record_zone_gateway(*zone, *gateway);
  for (unsigned i = 0; i < layout.nodes_per_router; ++i) {
    const unsigned id = first_id + i;
    const std::string host_name = prefix + std::to_string(id);
    sg4::Host* host = zone->create_host(host_name, cluster::kHostSpeed)->seal();
    auto* link = zone->create_split_duplex_link(host_name + "-link", bandwidth)->set_latency(latency);
    link->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{link, kUp}}, true);
    sg4::Link* loop = zone->create_link(host_name + "-loopback", cluster::kLoopbackBandwidth)->set_latency(0)->seal();
    zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr, {{loop, kNone}}, false);
    hosts[id] = host;
  }
  zone->seal();
  return {zone, gateway};
}

}  // namespace

std::vector<sg4::Host*> build_adaptive_dragonfly(const std::string& name, const DragonflyLayout& layout,
                                                 double bandwidth, double latency, const std::string& prefix,
                                                 PoolRouting pools) {
  const unsigned per_router = layout.nodes_per_router;
  const unsigned per_chassis = per_router * layout.routers;
  const unsigned per_group = per_chassis * layout.chassis;
  std::vector<sg4::Host*> hosts(static_cast<std::size_t>(per_group) * layout.groups, nullptr);

  // Latency of each level's minimal path beyond the two node links: a router pair 1 hop (green); a chassis pair 2
  // (green to the right slot, black); a group pair 5 (green, black, blue, green, black), of which the blue pools
  // carry the 2 hops on each side.
  const LevelLinks green{layout.router_links * bandwidth, 0, latency, per_router * bandwidth};
  const LevelLinks black{static_cast<double>(layout.routers) * layout.chassis_links * bandwidth, 0, 2 * latency,
                         per_chassis * bandwidth};
  const LevelLinks blue{layout.group_links * bandwidth, 2 * latency, latency, per_group * bandwidth};

  sg4::NetZone* machine = sg4::create_full_zone(name);
  std::vector<Unit> groups;
  for (unsigned g = 0; g < layout.groups; ++g) {
    const std::string group_name = name + "-g" + std::to_string(g);
    sg4::NetZone* group = detached_zone(group_name, machine);
    const Unit group_hub = build_hub(group, group_name + "-hub");
    record_zone_gateway(*group, *group_hub.gateway);
    std::vector<Unit> chassis;
    for (unsigned c = 0; c < layout.chassis; ++c) {
      const std::string chassis_name = group_name + "c" + std::to_string(c);
      sg4::NetZone* zone = sg4::create_full_zone(chassis_name)->set_parent(group);
      const Unit chassis_hub = build_hub(zone, chassis_name + "-hub");
      record_zone_gateway(*zone, *chassis_hub.gateway);
      std::vector<Unit> routers;
      for (unsigned r = 0; r < layout.routers; ++r) {
        const unsigned first_id = g * per_group + c * per_chassis + r * per_router;
        routers.push_back(build_router(zone, chassis_name + "r" + std::to_string(r), first_id, layout, bandwidth,
                                       latency, prefix, hosts));
      }
      connect_level(zone, &chassis_hub, routers, create_level_links(zone, layout.routers, green, pools));
      zone->seal();
      chassis.push_back({zone, chassis_hub.gateway});
    }
    connect_level(group, &group_hub, chassis, create_level_links(group, layout.chassis, black, pools));
    groups.push_back({group, group_hub.gateway});
  }
  const LevelWiring top = create_level_links(machine, layout.groups, blue, pools);  // while the root is alone
  for (const Unit& group : groups) group.zone->set_parent(machine)->seal();
  connect_level(machine, nullptr, groups, top);
  machine->seal();
  return hosts;
}

}  // namespace quorum
