#include "sim/simgrid/RouteSegments.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <stdexcept>

#include "platforms/ZoneGateway.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::NetZoneImpl;

RouteSegments::RouteSegments() : pair_limit_(platform_pair_cache_limit()) {}

RouteSegments::Pieces RouteSegments::route(const HostPair& hosts) {
  const auto from = static_cast<std::uint32_t>(hosts.key >> 32), to = static_cast<std::uint32_t>(hosts.key);
  if (from != to) {
    add_chain(from, hosts.from);
    add_chain(to, hosts.to);  // both added before either is read: adding one may move the other
    const std::vector<ZoneId>& source = chains_[from];
    const std::vector<ZoneId>& destination = chains_[to];
    std::size_t depth = 0;  // of the zones where the two chains part, below their common ancestor
    while (depth < source.size() && depth < destination.size() && source[depth] == destination[depth]) ++depth;
    if (depth > 0 && depth < source.size() && depth < destination.size()) {
      const NetPoint* out = zones_[source[depth]].gateway;
      const NetPoint* in = zones_[destination[depth]].gateway;
      if (out != nullptr && in != nullptr) {
        const NetPoint* from_point = hosts.from->get_netpoint();
        const NetPoint* to_point = hosts.to->get_netpoint();
        Pieces p;
        p.segment[0] = between(up_, HostPair::key_of(static_cast<int>(from), static_cast<int>(depth)), from_point, out);
        const std::uint64_t zones =
            HostPair::key_of(static_cast<int>(source[depth]), static_cast<int>(destination[depth]));
        p.segment[1] = between(across_, zones, out, in);
        p.segment[2] = between(down_, HostPair::key_of(static_cast<int>(to), static_cast<int>(depth)), in, to_point);
        p.count = 3;
        return p;
      }
    }
  }
  Pieces p;
  p.count = 1;
  if (const SegmentId* cached = whole_.find(hosts.key)) {
    p.segment[0] = *cached;
    return p;
  }
  if (whole_.size() >= pair_limit_) {
    whole_.clear();
    whole_routes_.clear();
  }
  if (whole_routes_.size() >= kWholeRoute) throw std::length_error("RouteSegments: 2^31 whole routes kept");
  p.segment[0] = static_cast<SegmentId>(whole_routes_.size()) | kWholeRoute;
  whole_routes_.push_back(route_between(hosts.from, hosts.to));
  whole_.at(hosts.key) = p.segment[0];
  return p;
}

HostRoute RouteSegments::links(const HostPair& hosts) {
  const Pieces p = route(hosts);
  HostRoute r;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    const HostRoute& s = segment(p.segment[i]);
    r.links.insert(r.links.end(), s.links.begin(), s.links.end());
    r.latency_s += s.latency_s;
  }
  return r;
}

void RouteSegments::add_chain(std::uint32_t host_index, const sg4::Host* host) {
  if (chains_.size() <= host_index) chains_.resize(host_index + 1);
  std::vector<ZoneId>& c = chains_[host_index];
  if (!c.empty()) return;
  for (const NetZoneImpl* z = host->get_netpoint()->get_englobing_zone(); z != nullptr; z = z->get_parent())
    c.push_back(zone_id(z));
  std::reverse(c.begin(), c.end());
}

RouteSegments::ZoneId RouteSegments::zone_id(const NetZoneImpl* zone) {
  const auto [it, added] = zone_ids_.try_emplace(zone, static_cast<ZoneId>(zones_.size()));
  if (added) zones_.push_back({zone, zone_gateway(*zone->get_iface())});
  return it->second;
}

RouteSegments::SegmentId RouteSegments::between(KeyTable<SegmentId>& table, std::uint64_t key, const NetPoint* from,
                                                const NetPoint* to) {
  if (const SegmentId* cached = table.find(key)) return *cached;
  std::vector<simgrid::kernel::resource::StandardLinkImpl*> impls;
  HostRoute r;
  NetZoneImpl::get_global_route(from, to, impls, &r.latency_s);
  r.links.reserve(impls.size());
  for (const auto* impl : impls) r.links.push_back(link_of(impl));
  if (segments_.size() >= kWholeRoute) throw std::length_error("RouteSegments: 2^31 pieces of routes");
  const auto id = static_cast<SegmentId>(segments_.size());
  segments_.push_back(std::move(r));
  table.at(key) = id;
  return id;
}

// SimGrid's kernel routes name links by their implementation, whose class is not in SimGrid's public headers: the
// public links are found through a table of every link's implementation, made once the platform is built.
sg4::Link* RouteSegments::link_of(const void* impl) {
  auto it = links_by_impl_.find(impl);
  if (it == links_by_impl_.end()) {
    for (sg4::Link* link : sg4::Engine::get_instance()->get_all_links()) links_by_impl_[link->get_impl()] = link;
    it = links_by_impl_.find(impl);
    if (it == links_by_impl_.end())
      throw std::logic_error("RouteSegments: a route crosses a link SimGrid does not list");
  }
  return it->second;
}

}  // namespace quorum
