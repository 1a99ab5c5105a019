#pragma once
// The SimGrid network model settings a platform runs with: set on the engine by configure_network_model
// (PlatformBuilder.cpp) and written into exported platform files (PlatformXml.cpp), from this one place.
#include <string>

#include "platforms/PlatformConfig.hpp"

namespace quorum {

struct NetworkModelSettings {
  std::string model;          // SimGrid's network/model: CM02 on every shipped platform
  bool crosstraffic = false;  // network/crosstraffic: off, so a message does not slow the reverse direction
};

NetworkModelSettings network_model_settings(const PlatformConfig& config);

}  // namespace quorum
