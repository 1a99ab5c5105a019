#pragma once
// A SimGrid XML platform file (DTD 4.1) equivalent to the platform quorum builds in C++, so that other SimGrid
// tools (SMPI's smpirun, above all) can run on the same machine: same hosts, same links, same routes, same network
// model settings. tests/unit/PlatformXmlTest.cpp loads both into SimGrid and compares their routes.
//
// Exported: piz_daint, generic (cluster, fat_tree, dragonfly, torus) and localhost (without a native allreduce
// table or reduction rate). The others throw PlatformXmlError saying why.
#include <stdexcept>
#include <string>
#include <vector>

#include "platforms/PlatformConfig.hpp"

namespace quorum {

class PlatformXmlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PlatformXml {
  std::string text;                     // the platform file
  std::vector<std::string> rank_hosts;  // the host of rank r at [r], as quorum places ranks (smpirun's hostfile)
};

PlatformXml platform_xml(const PlatformConfig& config);

}  // namespace quorum
