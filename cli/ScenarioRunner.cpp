#include "cli/ScenarioRunner.hpp"

#include "sim/model/RunConclusion.hpp"
#include "sim/simgrid/Simulation.hpp"

namespace quorum::cli {

void add_trace_options(CLI::App& command, TraceFlags& flags) {
  command.add_flag("--trace", flags.trace,
                   "write trace.json, a Chrome trace of every rank's compute, communication and waits (open it in "
                   "ui.perfetto.dev or chrome://tracing)");
  command.add_option("--trace-ranks", flags.ranks, "trace only these ranks, e.g. 0-3,8 (implies --trace)")
      ->type_name("RANGES");
  command.add_option("--trace-steps", flags.steps, "trace only these steps, e.g. 100-119 (implies --trace)")
      ->type_name("RANGE");
}

std::vector<std::string> trace_assignments(const TraceFlags& flags) {
  std::vector<std::string> sets;
  // Quoted as JSON strings so that "5" stays a range, not a number that --set would parse.
  if (flags.trace || !flags.ranks.empty() || !flags.steps.empty()) sets.push_back("output.trace=true");
  if (!flags.ranks.empty()) sets.push_back("output.trace_ranks=" + nlohmann::json(flags.ranks).dump());
  if (!flags.steps.empty()) sets.push_back("output.trace_steps=" + nlohmann::json(flags.steps).dump());
  return sets;
}

nlohmann::json simulate_to_dir(const Scenario& scenario, const std::string& dir) {
  SimulationOutput out = simulate(scenario);
  write_run_directory(dir, scenario, out.summary, *out.recorder, out.final_params);
  return out.summary;
}

}  // namespace quorum::cli
