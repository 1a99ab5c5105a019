#include "platforms/PlatformConfig.hpp"

namespace quorum {

int rank_count(const PlatformConfig& config) {
  struct Visitor {
    int operator()(const PizDaintConfig& c) const { return c.nodes; }
    int operator()(const Maverick2Config& c) const { return c.nodes * c.gpus_per_node; }
    int operator()(const LocalhostConfig& c) const { return c.ranks; }
    int operator()(const GenericConfig& c) const { return c.nodes; }
    int operator()(const XmlConfig& c) const { return c.ranks; }
  };
  return std::visit(Visitor{}, config);
}

int ranks_per_node(const PlatformConfig& config) {
  if (const auto* m = std::get_if<Maverick2Config>(&config)) return m->gpus_per_node;
  // A localhost of several nodes places its ranks as a cluster does. One node keeps 1, as the other one-rank-per-host
  // platforms: Prague's node-aware static schedule and imbalance.correlate then behave as on those.
  if (const auto* l = std::get_if<LocalhostConfig>(&config); l && localhost_nodes(*l) > 1)
    return localhost_ranks_per_node(*l);
  return 1;
}

double rank_link_bandwidth_Bps(const PlatformConfig& config) {
  struct Visitor {
    double operator()(const PizDaintConfig& c) const { return c.link_bandwidth_Bps; }
    double operator()(const Maverick2Config& c) const { return c.pcie_bandwidth_Bps; }
    double operator()(const LocalhostConfig& c) const { return c.bandwidth_Bps; }
    double operator()(const GenericConfig& c) const { return c.bandwidth_Bps; }
    double operator()(const XmlConfig&) const { return 0.0; }
  };
  return std::visit(Visitor{}, config);
}

std::vector<RankLevel> rank_levels(const PlatformConfig& config) {
  std::vector<RankLevel> levels = {{"node", ranks_per_node(config)}};
  auto dragonfly = [&levels](int nodes_per_router, int routers_per_chassis, int chassis_per_group) {
    levels.push_back({"router", nodes_per_router});
    levels.push_back({"chassis", nodes_per_router * routers_per_chassis});
    levels.push_back({"group", nodes_per_router * routers_per_chassis * chassis_per_group});
  };
  if (std::holds_alternative<PizDaintConfig>(config))
    dragonfly(PizDaintConfig::kNodesPerRouter, PizDaintConfig::kRoutersPerChassis, PizDaintConfig::kChassisPerGroup);
  if (const auto* g = std::get_if<GenericConfig>(&config); g != nullptr && g->topology == "dragonfly")
    dragonfly(static_cast<int>(g->nodes_per_router), static_cast<int>(g->routers), static_cast<int>(g->chassis));
  return levels;
}

DragonflyLayout dragonfly_layout(const PizDaintConfig& c) {
  constexpr int per_chassis = PizDaintConfig::kNodesPerRouter * PizDaintConfig::kRoutersPerChassis;
  constexpr int per_group = per_chassis * PizDaintConfig::kChassisPerGroup;
  const auto groups = static_cast<unsigned>((c.nodes + per_group - 1) / per_group);
  const auto chassis = groups > 1 ? static_cast<unsigned>(PizDaintConfig::kChassisPerGroup)
                                  : static_cast<unsigned>((c.nodes + per_chassis - 1) / per_chassis);
  return {groups,
          PizDaintConfig::kBlueLinks,
          chassis,
          PizDaintConfig::kBlackLinks,
          PizDaintConfig::kRoutersPerChassis,
          PizDaintConfig::kGreenLinks,
          PizDaintConfig::kNodesPerRouter};
}

DragonflyLayout dragonfly_layout(const GenericConfig& c) {
  return {c.groups, c.group_links, c.chassis, c.chassis_links, c.routers, c.router_links, c.nodes_per_router};
}

int localhost_ranks_per_node(const LocalhostConfig& config) {
  return config.ranks_per_node > 0 && config.ranks_per_node < config.ranks ? config.ranks_per_node : config.ranks;
}

int localhost_nodes(const LocalhostConfig& config) { return config.ranks / localhost_ranks_per_node(config); }

int shared_cores(const LocalhostConfig& config) {
  return config.cores > 0 && config.cores < localhost_ranks_per_node(config) ? config.cores : 0;
}

HostCosts host_costs(const PlatformConfig& config) {
  HostCosts costs;
  if (const auto* p = std::get_if<PizDaintConfig>(&config)) costs.reduce_Bps = p->reduce_Bps;
  if (const auto* l = std::get_if<LocalhostConfig>(&config)) {
    costs.reduce_Bps = l->reduce_Bps;
    if (!l->native_allreduce.empty()) costs.native_allreduce = &l->native_allreduce;
    costs.shared_cores = shared_cores(*l);
    costs.ranks_per_node = localhost_ranks_per_node(*l);
  }
  return costs;
}

}  // namespace quorum
