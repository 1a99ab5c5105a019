#pragma once
// Timelines as Chrome traces (the JSON object format that Perfetto, ui.perfetto.dev, and chrome://tracing read):
// one process per rank, one thread per agent and kind of span (compute and communication of the steps, waits,
// then one row per other category such as activation or group_generator), times in microseconds of simulated time.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "algorithms/RankContext.hpp"

namespace quorum {

// metadata goes into the trace's "otherData" (scenario, algorithm, platform, what was left out).
std::string chrome_trace_json(const std::vector<TraceSpan>& spans, const nlohmann::json& metadata);

}  // namespace quorum
