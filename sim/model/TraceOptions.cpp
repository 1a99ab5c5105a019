#include "sim/model/TraceOptions.hpp"

#include <charconv>
#include <stdexcept>

#include "sim/model/Fields.hpp"

namespace quorum {

bool TraceOptions::keeps_rank(int rank) const {
  if (ranks.empty()) return true;
  for (const auto& [lo, hi] : ranks)
    if (rank >= lo && rank <= hi) return true;
  return false;
}

std::vector<std::pair<std::int64_t, std::int64_t>> parse_ranges(const std::string& text) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  auto number = [&text](const std::string& s) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 0)
      throw std::invalid_argument("'" + text + "' is not a list of ranges like 0-3,8 (bad number '" + s + "')");
    return v;
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto dash = part.find('-');
    const std::int64_t lo = number(dash == std::string::npos ? part : part.substr(0, dash));
    const std::int64_t hi = dash == std::string::npos ? lo : number(part.substr(dash + 1));
    if (hi < lo) throw std::invalid_argument("'" + text + "': range " + part + " is empty (end before start)");
    out.emplace_back(lo, hi);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

namespace {
// A range field: a string of ranges, or a single non-negative integer.
std::vector<std::pair<std::int64_t, std::int64_t>> range_field(Fields& f, const std::string& key) {
  if (!f.has(key)) {
    f.set_resolved(key, "all");
    return {};
  }
  const auto& raw = f.raw(key);
  if (raw.is_number_integer()) {
    const std::int64_t v = f.integer(key, std::nullopt, 0);
    return {{v, v}};
  }
  const std::string text = f.string(key, std::nullopt);
  if (text == "all") return {};
  try {
    return parse_ranges(text);
  } catch (const std::invalid_argument& e) {
    f.fail(key, e.what());
  }
}
}  // namespace

TraceOptions parse_trace_options(Fields& f) {
  TraceOptions t;
  t.enabled = f.boolean("trace", false);
  t.ranks = range_field(f, "trace_ranks");
  const auto steps = range_field(f, "trace_steps");
  if (steps.size() > 1) f.fail("trace_steps", "give one range of steps, e.g. \"100-199\"");
  if (!steps.empty()) {
    t.first_step = steps.front().first;
    t.last_step = steps.front().second;
  }
  t.max_events = f.integer("trace_max_events", t.max_events, 1);
  return t;
}

}  // namespace quorum
