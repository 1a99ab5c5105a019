#pragma once
// Small file helpers for tests.
#include <fstream>
#include <sstream>
#include <string>

namespace quorum::testing {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace quorum::testing
