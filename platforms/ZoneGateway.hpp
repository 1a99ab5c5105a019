#pragma once
// A zone's gateway, recorded on the zone by the builders that know it: the one router through which every route of
// the zone's parent to or from the zone passes, in a parent without bypass routes. SimGrid builds a route between
// two hosts whose zones part below a common ancestor from the ancestor's route between the two zones' gateways and
// the routes from the source to its gateway and from the other gateway to the destination
// (NetZoneImpl::get_global_route), so such a route can be put together from pieces looked up once per host and per
// zone pair instead of once per host pair (sim/simgrid/RouteSegments.hpp).
namespace simgrid::s4u {
class NetZone;
}
namespace simgrid::kernel::routing {
class NetPoint;
}

namespace quorum {

void record_zone_gateway(simgrid::s4u::NetZone& zone, const simgrid::kernel::routing::NetPoint& gateway);
// The gateway recorded on the zone, or null.
simgrid::kernel::routing::NetPoint* zone_gateway(const simgrid::s4u::NetZone& zone);

}  // namespace quorum
