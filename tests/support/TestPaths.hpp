#pragma once
// Where the tests find the built CLI and the source tree (set by CMake).
#include <string>

namespace quorum::testing {
inline std::string quorum_binary() { return QUORUM_BINARY; }
inline std::string source_dir() { return QUORUM_SOURCE_DIR; }
}  // namespace quorum::testing
