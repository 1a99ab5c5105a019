#include "platforms/PlatformBuilder.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace quorum {

void configure_network_model(const PlatformConfig& config) {
  std::string model = "CM02";
  if (const auto* g = std::get_if<GenericConfig>(&config)) model = g->network_model;
  if (const auto* x = std::get_if<XmlConfig>(&config)) model = x->network_model;
  simgrid::s4u::Engine::set_config("network/model:" + model);
  simgrid::s4u::Engine::set_config("network/crosstraffic:0");
}

std::vector<simgrid::s4u::Host*> build_platform(const PlatformConfig& config) {
  struct Visitor {
    std::vector<simgrid::s4u::Host*> operator()(const PizDaintConfig& c) const { return build_piz_daint(c); }
    std::vector<simgrid::s4u::Host*> operator()(const Maverick2Config& c) const { return build_maverick2(c); }
    std::vector<simgrid::s4u::Host*> operator()(const LocalhostConfig& c) const { return build_localhost(c); }
    std::vector<simgrid::s4u::Host*> operator()(const GenericConfig& c) const { return build_generic(c); }
    std::vector<simgrid::s4u::Host*> operator()(const XmlConfig& c) const { return build_xml(c); }
  };
  return std::visit(Visitor{}, config);
}

}  // namespace quorum
