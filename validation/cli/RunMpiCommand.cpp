// quorum run SCENARIO --backend mpi: every rank of the MPI job parses the scenario, runs each algorithm variant in
// turn, and rank 0 writes the results and prints the table.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "sim/cli/Commands.hpp"
#include "sim/cli/ScenarioRunner.hpp"
#include "sim/model/Results.hpp"
#include "validation/cli/MpiCommands.hpp"
#include "validation/mpi/MpiEnvironment.hpp"
#include "validation/mpi/MpiError.hpp"
#include "validation/mpi/MpiRun.hpp"

namespace quorum::cli {

namespace {

bool everyone_ok(bool mine) {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out == 1;
}

std::string measured_table(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "%-22s %10s %14s %14s %13s %12s\n", "algorithm", "steps/s", "measured (s)",
                "test accuracy", "mean wait (s)", "wall (s)");
  os << line;
  for (std::size_t i = 0; i < summaries.size(); ++i) {
    const auto& s = summaries[i];
    std::string accuracy = "-";
    if (s["final_test_accuracy"].is_number()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * s["final_test_accuracy"].get<double>());
      accuracy = buf;
    } else if (s["final_loss"].is_number()) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "loss %.4g", s["final_loss"].get<double>());
      accuracy = buf;
    }
    std::snprintf(line, sizeof line, "%-22s %10.4f %14.3f %14s %13.4f %12.1f\n", labels[i].c_str(),
                  s.value("throughput_steps_per_s", 0.0), s.value("sim_time_s", 0.0), accuracy.c_str(),
                  s.value("mean_wait_s", 0.0), s.value("wall_time_s", 0.0));
    os << line;
  }
  return os.str();
}

}  // namespace

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
  std::vector<ScenarioVariant> variants;
  std::vector<Scenario> scenarios;
  std::string error;
  try {
    nlohmann::json json = read_scenario_json(scenario_path);
    apply_overrides(json, sets);
    variants = expand_algorithms(json);
    const std::string base_dir = std::filesystem::path(scenario_path).parent_path().string();
    for (const auto& v : variants) {
      scenarios.push_back(parse_scenario(v.json, base_dir));
      if (quiet) scenarios.back().progress = false;
    }
  } catch (const ScenarioError& e) {
    error = e.what();
  }
  // A file readable on rank 0 but not on another node must not leave half the job waiting.
  if (!everyone_ok(error.empty())) {
    if (!error.empty()) std::cerr << "error" << (root ? "" : " (rank " + std::to_string(env->rank()) + ")") << ": "
                                  << error << "\n";
    return kExitBadInput;
  }
  const std::string out = out_option.empty() ? "results/" + scenarios.front().name : out_option;
  std::vector<std::string> labels;
  std::vector<nlohmann::json> summaries;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const std::string dir = scenarios.size() == 1 ? out : out + "/" + variants[i].label;
    if (root && !quiet && scenarios.size() > 1) std::cerr << "[quorum] running " << variants[i].label << " -> " << dir << "\n";
    try {
      mpi::MpiRunOutput result = mpi::run_scenario_mpi(scenarios[i], dir);
      labels.push_back(variants[i].label);
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
    if (scenarios.size() > 1) write_file_atomic(out + "/comparison.csv", format_summary_csv(labels, summaries));
    const Scenario& s = scenarios.front();
    std::cout << s.name << ": " << s.ranks << " ranks on MPI (" << s.mpi.compute << " compute, "
              << s.mpi.message_bytes << " message sizes" << (s.mpi.gpu() ? ", GPU" : "") << "), workload "
              << s.workload_profile << ", imbalance " << s.imbalance.kind << ", " << s.iterations << " iterations";
    if (s.math.enabled()) std::cout << ", proxy " << s.math.model;
    std::cout << "\n" << measured_table(labels, summaries);
    std::cout << "results: " << out << (scenarios.size() > 1 ? "/<algorithm>/" : "/")
              << " (summary.json, iterations.csv" << (scenarios.size() > 1 ? "; comparison.csv in " + out : "")
              << ")\n";
  }
  return kExitOk;
}

}  // namespace quorum::cli
