#include "platforms/ZoneGateway.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>

namespace quorum {

namespace {
// A zone property: SimGrid keeps it with the zone and drops it with the platform.
constexpr const char* kGatewayProperty = "quorum:gateway";
}  // namespace

void record_zone_gateway(simgrid::s4u::NetZone& zone, const simgrid::kernel::routing::NetPoint& gateway) {
  zone.set_property(kGatewayProperty, gateway.get_name());
}

simgrid::kernel::routing::NetPoint* zone_gateway(const simgrid::s4u::NetZone& zone) {
  const char* name = zone.get_property(kGatewayProperty);
  return name == nullptr ? nullptr : simgrid::s4u::Engine::get_instance()->netpoint_by_name_or_null(name);
}

}  // namespace quorum
