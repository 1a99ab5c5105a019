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

}  // namespace quorum
