// quorum run SCENARIO --backend mpi: every rank of the MPI job parses the scenario, runs each algorithm variant in
// turn, and rank 0 writes the results and prints the table.
#include <iostream>

#include "cli/Commands.hpp"
#include "cli/MpiCommands.hpp"
#include "sim/model/Results.hpp"
#include "sim/model/ResultsTable.hpp"
#include "sim/model/ScenarioLoader.hpp"
#include "validation/mpi/MpiEnvironment.hpp"
#include "validation/mpi/MpiRun.hpp"

namespace quorum::cli {

std::unique_ptr<mpi::MpiEnvironment> start_mpi_for_command() {
  try {
    return std::make_unique<mpi::MpiEnvironment>(nullptr, nullptr);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return nullptr;
  }
}

int run_with_mpi_backend(const std::string& scenario_path, const std::vector<std::string>& sets,
                         const std::string& out_option, bool quiet) {
  const auto env = start_mpi_for_command();
  if (!env) return kExitFailure;
  const bool root = env->rank() == 0;
  std::vector<ScenarioRun> runs;
  std::string error;
  try {
    runs = load_scenario_runs(scenario_path, sets);
    for (auto& r : runs)
      if (quiet) r.scenario.progress = false;
  } catch (const ScenarioError& e) {
    error = e.what();
  }
  // A file readable on rank 0 but not on another node must not leave half the job waiting.
  if (!mpi::all_ranks_agree(error.empty())) {
    if (!error.empty()) std::cerr << "error" << (root ? "" : " (rank " + std::to_string(env->rank()) + ")") << ": "
                                  << error << "\n";
    return kExitBadInput;
  }
  const std::string out = out_option.empty() ? "results/" + runs.front().scenario.name : out_option;
  std::vector<std::string> labels;
  std::vector<nlohmann::json> summaries;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string dir = runs.size() == 1 ? out : out + "/" + runs[i].label;
    if (root && !quiet && runs.size() > 1) std::cerr << "[quorum] running " << runs[i].label << " -> " << dir << "\n";
    try {
      mpi::MpiRunOutput result = mpi::run_scenario_mpi(runs[i].scenario, dir);
      labels.push_back(runs[i].label);
      summaries.push_back(result.summary);
    } catch (const ScenarioError& e) {
      if (root) std::cerr << "error: " << e.what() << "\n";
      return kExitBadInput;
    } catch (const mpi::RunFailed& e) {
      if (root) std::cerr << "error: run failed: " << e.what() << "\n";
      return kExitRunFailed;
    }
  }
  if (root) {
    if (runs.size() > 1) write_file_atomic(out + "/comparison.csv", format_results_csv(labels, summaries));
    const Scenario& s = runs.front().scenario;
    std::cout << s.name << ": " << s.ranks << " ranks on MPI (" << s.mpi.compute << " compute, "
              << s.mpi.message_bytes << " message sizes" << (s.mpi.gpu() ? ", GPU" : "") << "), workload "
              << s.workload_profile << ", imbalance " << s.imbalance.kind << ", " << s.iterations << " iterations";
    if (s.math.enabled()) std::cout << ", proxy " << s.math.model;
    std::cout << "\n" << format_results_table(labels, summaries);
    std::cout << "results: " << out << (runs.size() > 1 ? "/<algorithm>/" : "/")
              << " (summary.json, iterations.csv" << (runs.size() > 1 ? "; comparison.csv in " + out : "")
              << ")\n";
  }
  return kExitOk;
}

}  // namespace quorum::cli
