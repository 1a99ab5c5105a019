#pragma once
// What a traced run (--trace) records for its timeline: which ranks, which steps, and a bound on the number of
// events, so that a large run can be traced in part without holding millions of spans in memory.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace quorum {

class Fields;

struct TraceOptions {
  bool enabled = false;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranks;  // inclusive ranges; empty: every rank
  std::int64_t first_step = 0;
  std::int64_t last_step = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_events = 2'000'000;

  bool keeps_rank(int rank) const;
  bool keeps_step(std::int64_t step) const { return step >= first_step && step <= last_step; }
};

// Parses "0-3,8,12-15" (inclusive ranges). Throws std::invalid_argument with a message saying what is wrong.
std::vector<std::pair<std::int64_t, std::int64_t>> parse_ranges(const std::string& text);

// The scenario's output.trace, output.trace_ranks ("0-3,8" or a rank number), output.trace_steps ("100-199" or a
// step number) and output.trace_max_events fields.
TraceOptions parse_trace_options(Fields& output);

}  // namespace quorum
