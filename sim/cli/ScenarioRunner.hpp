#pragma once
// Shared by the commands that run scenarios: --set overrides, algorithm lists, running one scenario into a result
// directory, and the comparison table.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/model/Scenario.hpp"

namespace quorum::cli {

// Applies --set assignments in order (apply_override: algorithm[i].field and algorithm.field on lists).
void apply_overrides(nlohmann::json& scenario, const std::vector<std::string>& assignments);

// The timeline options shared by run and sweep (--trace, --trace-ranks, --trace-steps), as --set assignments of
// the scenario's output.trace* fields.
struct TraceFlags {
  bool trace = false;
  std::string ranks, steps;
};
void add_trace_options(CLI::App& command, TraceFlags& flags);
std::vector<std::string> trace_assignments(const TraceFlags& flags);

// A scenario whose "algorithm" is a list stands for one run per entry, on the same platform, workload, imbalance
// and seed. Each variant has a label (the entry's "label", else its name, made unique) and the single-algorithm
// JSON.
struct ScenarioVariant {
  std::string label;
  nlohmann::json json;
};
std::vector<ScenarioVariant> expand_algorithms(const nlohmann::json& scenario);

// Simulates scenario in this process (once per process: SimGrid) and writes summary.json and iterations.csv to dir.
nlohmann::json simulate_to_dir(const Scenario& scenario, const std::string& dir);

// The short table `quorum run` prints: algorithm, steps/s, simulated time, final test accuracy, mean wait.
std::string format_summary_table(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries);
// The same rows as CSV.
std::string format_summary_csv(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries);

}  // namespace quorum::cli
