#include "platforms/NetworkModelSettings.hpp"

namespace quorum {

NetworkModelSettings network_model_settings(const PlatformConfig& config) {
  NetworkModelSettings s{"CM02", false};
  if (const auto* g = std::get_if<GenericConfig>(&config)) s.model = g->network_model;
  if (const auto* x = std::get_if<XmlConfig>(&config)) s.model = x->network_model;
  return s;
}

}  // namespace quorum
