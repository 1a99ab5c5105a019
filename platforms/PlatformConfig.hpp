#pragma once
// Typed descriptions of the platforms quorum can build. SimGrid-free: the scenario layer fills these from JSON
// (checking every field), the builders in this folder turn them into SimGrid zones.
#include <string>
#include <variant>
#include <vector>

#include "platforms/NativeAllreduceTable.hpp"

namespace quorum {

// Piz Daint (CSCS), Cray XC50: one NVIDIA P100 per node, Cray Aries dragonfly.
// Aries topology (Alverson et al., "Cray XC Series Network", Cray white paper WP-Aries01-1112, 2012; Faanes et al.,
// SC'12): 4 nodes per Aries router, 16 routers per chassis (all-to-all "green" backplane links), 6 chassis per group
// (each router linked to its 5 peers in the same slot of the other chassis by 3 "black" copper links), groups joined
// by optical "blue" links. Link figures: published models use about 5.25 GB/s per electrical and 4.75 GB/s per
// optical link, 0.65 to 2.2 us end to end (DESIGN.md, "Platform sources").
struct PizDaintConfig {
  int nodes = 64;
  double link_bandwidth_Bps = 5.25e9;  // electrical link; SimGrid's dragonfly takes one bandwidth for all levels
  double link_latency_s = 0.3e-6;      // per hop: 2 hops (same router) 0.6 us ... 7 hops (other group) 2.1 us
  // "adaptive" (Aries' default: UGAL over minimal and non-minimal paths; AdaptiveDragonfly.hpp) or "minimal"
  // (SimGrid's dragonfly: one fixed shortest path per node pair). Evidence for the default: platforms/README.md.
  std::string routing = "adaptive";
  // Bytes per second a node sums into its vector (y += x) when a collective reduces a received block (0: free, the
  // default; no published figure for fflib2's host-side summation on Piz Daint's Xeon E5-2690 v3).
  double reduce_Bps = 0;
  static constexpr int kNodesPerRouter = 4;
  static constexpr int kRoutersPerChassis = 16;
  static constexpr int kChassisPerGroup = 6;
  static constexpr int kGreenLinks = 1;   // per router pair inside a chassis
  static constexpr int kBlackLinks = 3;   // per router pair across chassis of a group
  static constexpr int kBlueLinks = 8;    // per group pair (aggregated optical ports); see PizDaint.cpp
};

// Maverick2 (TACC) GTX nodes: 4 NVIDIA GTX 1080 Ti on PCIe 3.0 x16 behind one Mellanox FDR InfiniBand adapter
// (56 Gb/s signalling, 64b/66b encoding: 54.5 Gb/s = 6.8 GB/s of data), nodes joined by a fat tree (Prague paper,
// 001 sec. 7.1; TACC Maverick2 user guide). One rank per GPU.
struct Maverick2Config {
  int nodes = 4;
  int gpus_per_node = 4;
  double ib_bandwidth_Bps = 6.8e9;
  double ib_latency_s = 0.7e-6;     // per fat-tree hop (FDR switch + cable)
  double pcie_bandwidth_Bps = 12e9; // PCIe 3.0 x16 measured host-device rate (15.75 GB/s theoretical)
  double pcie_latency_s = 1e-6;
  static constexpr int kLeafPorts = 18;  // 36-port FDR switch: 18 down, 18 up
};

// The machine quorum runs on, as measured by `quorum calibrate`: a star whose links reproduce the measured
// point-to-point latency and bandwidth between two ranks.
struct LocalhostConfig {
  int ranks = 4;
  double latency_s = 5e-6;       // one-way point-to-point latency between two ranks
  double bandwidth_Bps = 5e9;    // point-to-point bandwidth between two ranks
  // Rate at which all ranks together can move data (0: unlimited). On one machine every message is a memory copy,
  // so concurrent transfers share the memory system (and the cores, with more ranks than cores): measured by
  // `quorum calibrate` with every rank sending at once, modelled as one link every transfer crosses.
  double aggregate_bandwidth_Bps = 0;
  // Bytes per second one rank sums into its vector (y += x), every rank at once (0: not charged). The butterflies
  // and the ring pay it on every block they receive.
  double reduce_Bps = 0;
  // The MPI library's own allreduce, measured (empty: native allreduces are simulated as the point-to-point ring).
  NativeAllreduceTable native_allreduce;
  // Cores the ranks share (0: every rank has a core of its own). With fewer cores than ranks, the CPU work the
  // platform charges (reductions, the native allreduce) runs as executions on one host of this many cores, so
  // ranks that work at once share them as the real ranks share the machine's cores.
  int cores = 0;
  // Several nodes (a cluster's calibration): ranks k*ranks_per_node .. k*ranks_per_node + ranks_per_node - 1 sit on
  // node k (0: every rank on one node). The figures above are then a node's (its memory system and cores each node's
  // own); a message between nodes also crosses both nodes' network adapters, each one link shared by its node's ranks,
  // and takes inter_node_latency_s one way.
  int ranks_per_node = 0;
  double inter_node_latency_s = 0;
  double adapter_bandwidth_Bps = 0;  // what a node's ranks together send to other nodes, bytes/s
};

// A platform from explicit parameters.
struct GenericConfig {
  std::string topology = "cluster";  // cluster | fat_tree | dragonfly | torus
  int nodes = 4;                     // ranks (one per leaf host)
  double bandwidth_Bps = 10e9;
  double latency_s = 1e-6;
  std::string network_model = "CM02";
  // fat_tree: SimGrid's (levels, down, up, parallel) description.
  int fat_tree_levels = 2;
  std::vector<unsigned> fat_tree_down{4, 4}, fat_tree_up{1, 2}, fat_tree_parallel{1, 1};
  // dragonfly: (count, links) per level and nodes per router.
  unsigned groups = 1, group_links = 1, chassis = 1, chassis_links = 1, routers = 4, router_links = 1,
           nodes_per_router = 4;
  std::string routing = "minimal";  // dragonfly: "minimal" (SimGrid's) or "adaptive" (AdaptiveDragonfly.hpp)
  // torus
  std::vector<int> torus_dimensions{2, 2};
};

// A SimGrid XML platform file; ranks go to its hosts in name order.
struct XmlConfig {
  std::string file;
  int ranks = 0;
  std::string network_model = "CM02";
};

// Counts of a dragonfly, as SimGrid's DragonflyParams: (count, links to each peer) per level, nodes per router.
struct DragonflyLayout {
  unsigned groups = 1, group_links = 1;
  unsigned chassis = 1, chassis_links = 1;
  unsigned routers = 1, router_links = 1;
  unsigned nodes_per_router = 1;
};
// Piz Daint's dragonfly, built just large enough: as many chassis as needed up to 6 per group, then as many groups as
// needed (4096 nodes: 11 groups of 384). Read by the builder and by the XML export.
DragonflyLayout dragonfly_layout(const PizDaintConfig& config);
// A generic dragonfly's own parameters.
DragonflyLayout dragonfly_layout(const GenericConfig& config);

using PlatformConfig = std::variant<PizDaintConfig, Maverick2Config, LocalhostConfig, GenericConfig, XmlConfig>;

// Number of ranks the platform runs (nodes, or nodes x GPUs per node).
int rank_count(const PlatformConfig& config);
// Ranks that share a node (and its network adapter): ranks k*n .. k*n+n-1 sit on node k. Maverick2: its GPUs per
// node; localhost: its ranks per node when it has several nodes; every other platform places one rank per host.
int ranks_per_node(const PlatformConfig& config);

// A named group of consecutive ranks that share hardware: ranks k*ranks .. k*ranks + ranks - 1 sit in the k-th one.
struct RankLevel {
  std::string name;
  int ranks = 1;
};
// Bandwidth of the link that belongs to one rank alone (its node's on Piz Daint, its GPU's PCIe on Maverick2, its
// calibrated link on localhost), which the slow_link imbalance slows; 0 where the model does not say (an XML file).
double rank_link_bandwidth_Bps(const PlatformConfig& config);

// The platform's levels, innermost first (imbalance.correlate): "node" everywhere (ranks_per_node); on the
// dragonflies (piz_daint, generic dragonfly), whose ranks fill routers, chassis and groups in order, also "router",
// "chassis" and "group" (Piz Daint: 4, 64 and 384 nodes).
std::vector<RankLevel> rank_levels(const PlatformConfig& config);

// What a rank's CPU and MPI library cost beyond the network, where the platform has measured them (localhost from
// `quorum calibrate`); elsewhere nothing (reductions free, native allreduces simulated point to point).
struct HostCosts {
  double reduce_Bps = 0;                                 // 0: reductions are not charged
  const NativeAllreduceTable* native_allreduce = nullptr;  // null or empty: no native allreduce
  int shared_cores = 0;  // > 0: the charged CPU work runs on that many cores per node, shared by its ranks (localhost)
  int ranks_per_node = 1;  // the ranks sharing one node's cores, ranks k*n .. k*n+n-1 on node k
};
HostCosts host_costs(const PlatformConfig& config);
// The cores a localhost platform's ranks share, or 0 when each rank has one of its own (no cores given, or at least
// as many cores as ranks).
int shared_cores(const LocalhostConfig& config);
// The nodes of a localhost platform (1 unless ranks_per_node splits the ranks) and the ranks on each.
int localhost_nodes(const LocalhostConfig& config);
int localhost_ranks_per_node(const LocalhostConfig& config);

}  // namespace quorum
