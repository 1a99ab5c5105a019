#pragma once
// Builds a platform in the running SimGrid engine and returns the host of every rank, in rank order.
#include <string>
#include <vector>

#include "platforms/PlatformConfig.hpp"

namespace simgrid::s4u {
class Host;
}

namespace quorum {

// The network model each platform uses, set before the platform is built. All shipped platforms use CM02 without
// cross-traffic, which gives textbook alpha-beta times (latency + size / bandwidth, max-min sharing); SimGrid's
// default LV08 multiplies latencies by about 13 to model TCP, which HPC interconnects do not show.
void configure_network_model(const PlatformConfig& config);

// The host of a localhost platform's node on which its ranks' charged CPU work runs when they outnumber the node's
// cores (HostCosts::shared_cores): that many cores of speed cluster::kHostSpeed, shared by the node's ranks.
std::string shared_cores_host(int node);

std::vector<simgrid::s4u::Host*> build_platform(const PlatformConfig& config);

// A dragonfly with "minimal" or "adaptive" routing (Dragonfly.cpp); every host "<host_prefix><id>", in id order.
std::vector<simgrid::s4u::Host*> build_dragonfly(const std::string& name, const DragonflyLayout& layout,
                                                 const std::string& routing, double bandwidth_Bps, double latency_s,
                                                 const std::string& host_prefix);

// Per-platform builders (one file each).
std::vector<simgrid::s4u::Host*> build_piz_daint(const PizDaintConfig& config);
std::vector<simgrid::s4u::Host*> build_maverick2(const Maverick2Config& config);
std::vector<simgrid::s4u::Host*> build_localhost(const LocalhostConfig& config);
std::vector<simgrid::s4u::Host*> build_generic(const GenericConfig& config);
std::vector<simgrid::s4u::Host*> build_xml(const XmlConfig& config);

}  // namespace quorum
