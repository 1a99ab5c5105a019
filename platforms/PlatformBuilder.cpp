#include "platforms/PlatformBuilder.hpp"

#include <simgrid/s4u/Engine.hpp>

#include "platforms/NetworkModelSettings.hpp"

namespace quorum {

void configure_network_model(const PlatformConfig& config) {
  const NetworkModelSettings settings = network_model_settings(config);
  simgrid::s4u::Engine::set_config("network/model:" + settings.model);
  simgrid::s4u::Engine::set_config(std::string("network/crosstraffic:") + (settings.crosstraffic ? "1" : "0"));
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
