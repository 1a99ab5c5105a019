#pragma once
// Shared by the commands that simulate scenarios: the timeline flags, and running one scenario into a result
// directory. (Reading scenario files is sim/model/ScenarioLoader.hpp; the result table sim/model/ResultsTable.hpp.)
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/model/Scenario.hpp"
#include "sim/model/ScenarioLoader.hpp"
#include "sim/model/ResultsTable.hpp"

namespace quorum::cli {

// The timeline options shared by run and sweep (--trace, --trace-ranks, --trace-steps), as --set assignments of
// the scenario's output.trace* fields.
struct TraceFlags {
  bool trace = false;
  std::string ranks, steps;
};
void add_trace_options(CLI::App& command, TraceFlags& flags);
std::vector<std::string> trace_assignments(const TraceFlags& flags);

// Simulates scenario in this process (once per process: SimGrid) and writes summary.json and iterations.csv to dir.
nlohmann::json simulate_to_dir(const Scenario& scenario, const std::string& dir);

}  // namespace quorum::cli
