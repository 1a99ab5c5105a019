#pragma once
// Small file helpers for tests.
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace quorum::testing {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Takes out of a summary.json the fields read off the wall clock, which no two runs share, so that two runs'
// summaries can be compared whole.
inline void erase_wall_fields(nlohmann::json& summary) {
  for (const char* field : {"wall_time_s", "wall_s_per_step", "wall_s_at_step_ends"}) summary.erase(field);
}

// Splits a CSV line as RFC 4180 does (quoted cells may hold commas and doubled quotes).
inline std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cells.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else cells.back() += c;
    } else if (c == '"') quoted = true;
    else if (c == ',') cells.emplace_back();
    else cells.back() += c;
  }
  return cells;
}

}  // namespace quorum::testing
