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
  return 1;
}

HostCosts host_costs(const PlatformConfig& config) {
  HostCosts costs;
  if (const auto* p = std::get_if<PizDaintConfig>(&config)) costs.reduce_Bps = p->reduce_Bps;
  if (const auto* l = std::get_if<LocalhostConfig>(&config)) {
    costs.reduce_Bps = l->reduce_Bps;
    if (!l->native_allreduce.empty()) costs.native_allreduce = &l->native_allreduce;
  }
  return costs;
}

}  // namespace quorum
