// quorum run SCENARIO [--set key=value ...] [--out DIR]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/Commands.hpp"
#include "cli/ScenarioRunner.hpp"
#include "sim/model/Results.hpp"
#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/Simulation.hpp"
#ifdef QUORUM_HAVE_MPI
#include "cli/MpiCommands.hpp"
#endif

namespace quorum::cli {

namespace {

struct RunOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string out;
  bool quiet = false;
  std::string backend = "simgrid";
  TraceFlags trace;
};

int run(const RunOptions& o) {
  std::vector<ScenarioRun> runs;
  try {
    std::vector<std::string> sets = o.sets;
    for (auto& a : trace_assignments(o.trace)) sets.push_back(std::move(a));
    const ScenarioDocument doc = read_scenario_document(o.scenario, sets);
    if (doc.json.is_object() && doc.json.contains("sweep") && !o.quiet)
      std::cerr << "[quorum] " << o.scenario << " has a sweep block: `quorum run` runs its base scenario; "
                << "`quorum sweep` runs the sweep\n";
    runs = parse_variants(expand_algorithms(doc.json), doc.base_dir);
    for (auto& r : runs)
      if (o.quiet) r.scenario.progress = false;
  } catch (const ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const std::string out = o.out.empty() ? "results/" + runs.front().scenario.name : o.out;

  std::vector<std::string> labels;
  std::vector<nlohmann::json> summaries;
  int status = kExitOk;
  if (runs.size() == 1) {
    try {
      summaries.push_back(simulate_to_dir(runs.front().scenario, out));
      labels.push_back(runs.front().label);
    } catch (const SimulationError& e) {
      std::cerr << "error: simulation failed: " << e.what() << "\n";
      return kExitRunFailed;
    }
  } else {
    // One process per algorithm: SimGrid runs one engine per process.
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::string dir = out + "/" + runs[i].label;
      if (!o.quiet) std::cerr << "[quorum] running " << runs[i].label << " -> " << dir << "\n";
      const ChildResult child = run_in_child([&] {
        try {
          simulate_to_dir(runs[i].scenario, dir);
          return kExitOk;
        } catch (const SimulationError& e) {
          report_error(std::string("simulation failed: ") + e.what());
          return kExitRunFailed;
        }
      });
      if (child.exit_code != kExitOk) {
        std::cerr << "error: " << runs[i].label << ": "
                  << (child.error_text.empty() ? "child process failed (signal " + std::to_string(child.signal) + ")"
                                               : child.error_text)
                  << "\n";
        status = kExitRunFailed;
        continue;
      }
      std::ifstream in(dir + "/summary.json");
      summaries.push_back(nlohmann::json::parse(in));
      labels.push_back(runs[i].label);
    }
    if (!summaries.empty()) write_file_atomic(out + "/comparison.csv", format_results_csv(labels, summaries));
  }

  const Scenario& s = runs.front().scenario;
  std::cout << s.name << ": " << s.ranks << " ranks on " << s.platform_name << ", workload " << s.workload_profile
            << ", imbalance " << s.imbalance.kind << ", " << s.iterations << " iterations";
  if (s.math.enabled()) std::cout << ", proxy " << s.math.model;
  std::cout << "\n" << format_results_table(labels, summaries);
  std::cout << "results: " << out << (runs.size() > 1 ? "/<algorithm>/" : "/")
            << " (summary.json, iterations.csv" << (s.trace.enabled ? ", trace.json" : "")
            << (runs.size() > 1 ? "; comparison.csv in " + out : "") << ")\n";
  return status;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a scenario; write summary.json and iterations.csv");
  cmd->add_option("scenario", options->scenario, "scenario JSON file (see scenarios/README.md)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", options->sets, "override a field by its dotted path, e.g. --set platform.nodes=256")
      ->type_name("KEY=VALUE");
  cmd->add_option("--out", options->out, "result directory (default: results/<scenario name>)");
  cmd->add_flag("--quiet", options->quiet, "no progress on stderr");
  add_trace_options(*cmd, options->trace);
  cmd->add_option("--backend", options->backend,
                  "simgrid: simulate (default); mpi: run for real under mpirun (see validation/README.md)")
      ->check(CLI::IsMember({"simgrid", "mpi"}));
  cmd->callback([options, &exit_code] {
    if (options->backend == "mpi") {
#ifdef QUORUM_HAVE_MPI
      std::vector<std::string> sets = options->sets;
      for (auto& a : trace_assignments(options->trace)) sets.push_back(std::move(a));
      exit_code = run_with_mpi_backend(options->scenario, sets, options->out, options->quiet);
#else
      std::cerr << "error: --backend mpi: this quorum was built without Open MPI (install libopenmpi-dev and "
                   "rebuild)\n";
      exit_code = kExitBadInput;
#endif
      return;
    }
    exit_code = run(*options);
  });
}

}  // namespace quorum::cli
