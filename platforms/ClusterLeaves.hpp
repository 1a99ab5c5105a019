#pragma once
// Callbacks shared by the cluster-shaped builders (dragonfly, fat tree, torus): one host per leaf, recorded by
// its leaf id so ranks map onto consecutive leaves, and a fast loopback so a rank's agents can message each other.
#include <simgrid/s4u/NetZone.hpp>

#include <string>
#include <vector>

namespace quorum::cluster {

inline constexpr double kHostSpeed = 1e9;  // compute is modelled as durations, so host speed never matters
inline constexpr double kLoopbackBandwidth = 100e9;

// Leaf callback creating host "<prefix><id>"; hosts[id] receives it (hosts is resized as needed).
std::function<simgrid::s4u::ClusterCallbacks::ClusterNetPointCb> host_leaf(const std::string& prefix,
                                                                            std::vector<simgrid::s4u::Host*>& hosts);
std::function<simgrid::s4u::ClusterCallbacks::ClusterLinkCb> loopback(const std::string& prefix);

// Keeps the first n hosts (clusters are built to the next full size).
std::vector<simgrid::s4u::Host*> first(std::vector<simgrid::s4u::Host*> hosts, int n);

}  // namespace quorum::cluster
