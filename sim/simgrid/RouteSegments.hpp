#pragma once
// SimGrid's routes between hosts, put together from pieces looked up once each: a host's way up to the gateway of
// one of its zones, a zone pair's route between their gateways, and the way down from a gateway to a host.
//
// Why: Prague and the gossips draw new host pairs all run long (at 4,096 ranks, about 6,800 per Prague step), and
// SimGrid's route lookup (Host::route_to) walks the zone hierarchy and allocates for each: 12,000 instructions a
// pair, in all as many as the flow model's filling (callgrind). Pieces are few: hosts times levels, and zone pairs.
//
// How: SimGrid routes a host pair whose zones part below a common ancestor C (the source in C's child Za, the
// destination in Zb) along the route from the source to Za's gateway, C's route from Za's gateway to Zb's, and the
// route from Zb's gateway to the destination (NetZoneImpl::get_global_route). Where both Za and Zb have a recorded
// gateway (platforms/ZoneGateway.hpp), the pair's route is those three pieces, each asked of SimGrid once; otherwise
// (one leaf zone, a platform that records no gateways) it is one piece, the pair's whole route from Host::route_to.
// The links are SimGrid's, in its order; the latency is the pieces' sum, which can differ from SimGrid's sum of the
// same links in the last bit (the additions come in another order).
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/simgrid/HostRoute.hpp"
#include "sim/simgrid/KeyTable.hpp"

namespace simgrid::kernel::routing {
class NetPoint;
class NetZoneImpl;
}  // namespace simgrid::kernel::routing

namespace quorum {

class RouteSegments {
 public:
  using SegmentId = std::uint32_t;
  // A route: the links of its segments in order, its latency their sum.
  struct Pieces {
    std::array<SegmentId, 3> segment{};
    std::uint32_t count = 0;
  };

  // The whole routes kept for at most pair_cache_limit() of the platform's hosts: build the platform first.
  RouteSegments();

  // The ids stay valid until the next call: it may forget the whole routes (limit_pairs()).
  Pieces route(const HostPair& hosts);
  const HostRoute& segment(SegmentId id) const {
    return (id & kWholeRoute) != 0 ? whole_routes_[id & ~kWholeRoute] : segments_[id];
  }
  // The pieces looked up (hosts times levels, and zone pairs: bounded by the platform), and the whole routes kept.
  std::size_t piece_count() const { return segments_.size(); }
  std::size_t whole_route_count() const { return whole_routes_.size(); }
  // How many host pairs' whole routes are kept before they are all forgotten (pair_cache_limit() of the platform's
  // hosts unless set): on a platform that records no gateways every pair's route is a whole route of its own.
  void limit_pairs(std::size_t pairs) { pair_limit_ = pairs; }
  // The whole route as one list: the segments' links in order and their latencies' sum.
  HostRoute links(const HostPair& hosts);

 private:
  using ZoneId = std::uint32_t;
  struct Zone {
    const simgrid::kernel::routing::NetZoneImpl* impl;
    const simgrid::kernel::routing::NetPoint* gateway;  // null: none recorded
  };
  void add_chain(std::uint32_t host_index, const simgrid::s4u::Host* host);
  ZoneId zone_id(const simgrid::kernel::routing::NetZoneImpl* zone);
  SegmentId between(KeyTable<SegmentId>& table, std::uint64_t key, const simgrid::kernel::routing::NetPoint* from,
                    const simgrid::kernel::routing::NetPoint* to);
  simgrid::s4u::Link* link_of(const void* impl);

  static constexpr SegmentId kWholeRoute = SegmentId{1} << 31;  // marks an id as one of whole_routes_

  std::vector<HostRoute> segments_;     // the pieces
  std::vector<HostRoute> whole_routes_;  // by whole_'s ids (less kWholeRoute); emptied with it at pair_limit_ pairs
  std::vector<Zone> zones_;
  std::unordered_map<const simgrid::kernel::routing::NetZoneImpl*, ZoneId> zone_ids_;
  std::vector<std::vector<ZoneId>> chains_;  // by host index: its zones from the root down to its own
  KeyTable<SegmentId> whole_;    // by HostPair::key
  KeyTable<SegmentId> up_;       // by (host index, depth of the zone whose gateway it goes to)
  KeyTable<SegmentId> across_;   // by (zone, zone)
  KeyTable<SegmentId> down_;     // by (host index, depth of the zone whose gateway it comes from)
  std::unordered_map<const void*, simgrid::s4u::Link*> links_by_impl_;  // SimGrid's link implementations
  std::size_t pair_limit_;
};

}  // namespace quorum
