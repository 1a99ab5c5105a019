// quorum validate SCENARIO --np N: calibrates this machine (unless given a calibration), runs every algorithm of
// the scenario for real on N ranks (spawning mpirun) and in simulation on the calibrated localhost platform with the
// same seed, and writes validation.json with measured against predicted throughput and mean wait.
//
// OUT/calibration.json            the calibration used (unless --calibration)
// OUT/<label>/measured/           the MPI run's results (summary.json, iterations.csv, ...), logs beside them
// OUT/<label>/predicted/          the simulation's results
// OUT/validation.json             {"rows": [{algorithm, measured_steps_per_s, predicted_steps_per_s, relative_error,
//                                  measured_mean_wait_s, predicted_mean_wait_s, wait_error_s,
//                                  measured/predicted_aggregate_steps_per_s, aggregate_relative_error}], ...}, last
//
// --measured DIR takes the real runs (and, unless --calibration, the calibration) from an earlier validate's DIR
// instead of running them: the predictions of this build against real runs made once, on a machine that may be gone.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/Commands.hpp"
#include "cli/MpiCommands.hpp"
#include "cli/ScenarioRunner.hpp"
#include "sim/model/Results.hpp"
#include "sim/model/ScenarioLoader.hpp"
#include "sim/model/Version.hpp"
#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/Simulation.hpp"
#include "validation/validate/Comparison.hpp"
#include "validation/validate/Launcher.hpp"

namespace quorum::cli {

namespace {

inline constexpr int kExitOutOfTolerance = 4;

struct ValidateOptions {
  std::string scenario;
  int np = 0;
  std::string out;
  std::string calibration;
  std::string measured;  // an earlier validate's output whose real runs are taken instead of running them
  std::string launcher;
  std::vector<std::string> sets;
  bool quiet = false;
  double tolerance = -1;
};

std::string tail_of(const std::string& path, std::size_t bytes = 4000) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  return s.size() > bytes ? "..." + s.substr(s.size() - bytes) : s;
}

std::vector<std::string> launch(const ValidateOptions& o) {
  return o.launcher.empty() ? validation::local_launcher(o.np) : validation::parse_launcher(o.launcher, o.np);
}

// Runs one MPI job; returns an error text (empty on success). Logs go next to the results.
std::string run_job(const ValidateOptions& o, std::vector<std::string> args, const std::string& log_stem) {
  std::vector<std::string> argv = launch(o);
  argv.push_back(validation::self_executable());
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string out_log = log_stem + ".out.log", err_log = log_stem + ".err.log";
  std::filesystem::remove(out_log);
  std::filesystem::remove(err_log);
  const validation::ProcessResult r = validation::run_process(argv, out_log, err_log);
  if (r.exit_code == 0) return "";
  std::ostringstream os;
  os << "'" << argv.front() << " ...' ";
  if (r.exit_code >= 0) os << "exited with status " << r.exit_code;
  else os << "was killed by signal " << r.signal;
  os << " (logs: " << out_log << ", " << err_log << "):\n" << tail_of(err_log);
  return os.str();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  return nlohmann::json::parse(in);
}

// Why a stored real run cannot stand for this variant's (empty if it can): it must exist and be the same scenario,
// algorithm, ranks and steps.
std::string stored_run_mismatch(const std::string& measured_dir, const Scenario& scenario, int np) {
  const std::string file = measured_dir + "/summary.json";
  if (!std::filesystem::exists(file)) return "no real run stored at '" + file + "'";
  const nlohmann::json m = read_json(file);
  if (m.value("backend", "") != "mpi")
    return "'" + file + "' is not a real run (backend " + m.value("backend", "?") + ")";
  const auto differs = [&](const char* field, const nlohmann::json& want) {
    return !m.contains(field) || m[field] != want;
  };
  for (const auto& [field, want] : {std::pair<const char*, nlohmann::json>{"name", scenario.name},
                                    {"algorithm", scenario.algorithm},
                                    {"ranks", np},
                                    {"iterations", scenario.iterations}})
    if (differs(field, want))
      return "the stored run's " + std::string(field) + " is " + (m.contains(field) ? m[field].dump() : "missing") +
             ", this scenario's " + want.dump() + " ('" + file + "')";
  return "";
}

int validate_command(const ValidateOptions& o) {
  namespace fs = std::filesystem;
  // Read and check the scenario and every variant on the platform they will be predicted on.
  nlohmann::json platform = {{"name", "localhost"}, {"nodes", o.np}};
  std::vector<ScenarioRun> variants;
  std::string out = o.out;
  try {
    std::vector<std::string> sets = o.sets;
    sets.push_back("platform=" + platform.dump());
    variants = load_scenario_runs(o.scenario, sets);
    if (out.empty()) out = "results/" + variants.front().scenario.name + "-validation";
  } catch (const ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const std::string base_dir = fs::path(o.scenario).parent_path().string();
  fs::create_directories(out);
  out = fs::absolute(out).string();
  const std::string scenario_path = fs::absolute(o.scenario).string();

  const std::string measured_root = o.measured.empty() ? "" : fs::absolute(o.measured).string();
  if (!measured_root.empty()) {
    for (const auto& v : variants) {
      const std::string error = stored_run_mismatch(measured_root + "/" + v.label + "/measured", v.scenario, o.np);
      if (!error.empty()) {
        std::cerr << "error: --measured: " << v.label << ": " << error << "\n";
        return kExitBadInput;
      }
    }
  }

  // 1. Calibrate (or take the given calibration, or the stored runs' one).
  std::string calibration = !o.calibration.empty()     ? fs::absolute(o.calibration).string()
                            : !measured_root.empty() ? measured_root + "/calibration.json"
                                                     : out + "/calibration.json";
  if (o.calibration.empty() && !measured_root.empty() && !fs::exists(calibration)) {
    // Runs validated with --calibration keep no copy of it; their validation.json records what it held.
    const std::string record = measured_root + "/validation.json";
    const nlohmann::json recorded = fs::exists(record) ? read_json(record) : nlohmann::json::object();
    if (!recorded.contains("calibration")) {
      std::cerr << "error: --measured: no calibration.json or validation.json in '" << o.measured
                << "': give the runs' calibration with --calibration\n";
      return kExitBadInput;
    }
    calibration = out + "/calibration.json";
    write_file_atomic(calibration, recorded["calibration"].dump(2) + "\n");
  }
  if (o.calibration.empty() && measured_root.empty()) {
    if (!o.quiet) std::cerr << "[validate] calibrating " << o.np << " ranks -> " << calibration << "\n";
    std::vector<std::string> args = {"calibrate", "--out", calibration, "--scenario", scenario_path};
    for (const auto& s : o.sets) args.insert(args.end(), {"--set", s});
    const std::string error = run_job(o, args, out + "/calibration");
    if (!error.empty()) {
      std::cerr << "error: calibration failed: " << error << "\n";
      return kExitRunFailed;
    }
  }
  nlohmann::json calibrated;
  try {
    calibrated = read_json(calibration);
  } catch (const std::exception& e) {
    std::cerr << "error: " << (o.calibration.empty() ? "--measured" : "--calibration") << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  platform["calibration"] = calibration;

  // 2. Each algorithm: measured, then predicted.
  std::vector<validation::ValidationRow> rows;
  nlohmann::json runs = nlohmann::json::array();
  int status = kExitOk;
  for (const auto& v : variants) {
    const std::string dir = out + "/" + v.label;
    const std::string measured_dir =
        measured_root.empty() ? dir + "/measured" : measured_root + "/" + v.label + "/measured";
    fs::create_directories(dir);
    if (measured_root.empty()) fs::remove_all(dir + "/measured");
    fs::remove_all(dir + "/predicted");
    nlohmann::json measured_json = v.json, predicted_json = v.json;
    measured_json["platform"] = platform;
    predicted_json["platform"] = platform;
    Scenario predicted;
    try {
      predicted = parse_scenario(predicted_json, base_dir);
      if (!predicted.mpi.emulate()) {
        // compute: real runs the proxy's math for real; the prediction charges the calibrated step time.
        predicted_json["workload"]["compute"] = {{"kind", "constant"}, {"seconds", calibrated.at("proxy_step_s")}};
        predicted = parse_scenario(predicted_json, base_dir);
      }
    } catch (const std::exception& e) {
      std::cerr << "error: " << v.label << ": " << e.what() << "\n";
      return kExitBadInput;
    }
    predicted.progress = false;

    if (measured_root.empty()) {
      if (!o.quiet) std::cerr << "[validate] " << v.label << ": running on " << o.np << " ranks\n";
      std::vector<std::string> args = {"run", scenario_path};
      for (const auto& s : o.sets) args.insert(args.end(), {"--set", s});
      args.insert(args.end(), {"--set", "platform=" + platform.dump(), "--set",
                               "algorithm=" + measured_json["algorithm"].dump(), "--backend", "mpi", "--quiet",
                               "--out", dir + "/measured"});
      const std::string error = run_job(o, args, dir + "/measured");
      if (!error.empty()) {
        std::cerr << "error: " << v.label << ": the MPI run failed: " << error << "\n";
        status = kExitRunFailed;
        continue;
      }
    }
    if (!o.quiet) std::cerr << "[validate] " << v.label << ": simulating on the calibrated platform\n";
    const ChildResult child = run_in_child([&] {
      try {
        simulate_to_dir(predicted, dir + "/predicted");
        return kExitOk;
      } catch (const SimulationError& e) {
        report_error(std::string("simulation failed: ") + e.what());
        return kExitRunFailed;
      }
    });
    if (child.exit_code != kExitOk) {
      std::cerr << "error: " << v.label << ": " << child.error_text << "\n";
      status = kExitRunFailed;
      continue;
    }
    try {
      const nlohmann::json m = read_json(measured_dir + "/summary.json");
      const nlohmann::json p = read_json(dir + "/predicted/summary.json");
      rows.push_back(validation::compare_summaries(v.label, m, p));
      runs.push_back({{"algorithm", v.label},
                      {"measured", measured_dir},
                      {"predicted", dir + "/predicted"},
                      {"measured_wall_s", m.value("wall_time_s", 0.0)},
                      {"mpi", m.value("mpi", nlohmann::json())}});
    } catch (const std::exception& e) {
      std::cerr << "error: " << v.label << ": " << e.what() << "\n";
      status = kExitRunFailed;
    }
  }

  // 3. validation.json, written last.
  nlohmann::json result;
  result["quorum_version"] = kVersion;
  result["scenario"] = scenario_path;
  result["overrides"] = o.sets;
  result["np"] = o.np;
  result["launcher"] = launch(o);
  result["calibration"] = calibrated;
  result["calibration_file"] = calibration;
  if (!measured_root.empty()) result["measured_from"] = measured_root;
  nlohmann::json row_list = nlohmann::json::array();
  double worst = 0;
  for (const auto& r : rows) {
    row_list.push_back(validation::row_json(r));
    if (std::isfinite(r.relative_error)) worst = std::max(worst, std::abs(r.relative_error));
  }
  result["rows"] = row_list;
  result["max_abs_relative_error"] = worst;
  result["runs"] = runs;
  write_file_atomic(out + "/validation.json", result.dump(2) + "\n");

  std::printf("validation of %s on %d ranks (calibrated: latency %.1f us, bandwidth %.2f GB/s)\n",
              variants.front().scenario.name.c_str(), o.np,
              calibrated.value("latency_s", 0.0) * 1e6, calibrated.value("bandwidth_Bps", 0.0) * 1e-9);
  std::cout << validation::format_validation_table(rows);
  if (measured_root.empty())
    std::cout << "results: " << out << "/validation.json (runs in " << out << "/<algorithm>/{measured,predicted})\n";
  else
    std::cout << "results: " << out << "/validation.json (predictions in " << out
              << "/<algorithm>/predicted, real runs from " << measured_root << "/<algorithm>/measured)\n";
  if (status == kExitOk && o.tolerance >= 0 && worst > o.tolerance) {
    std::cerr << "error: largest relative error " << 100 * worst << "% exceeds --tolerance " << 100 * o.tolerance
              << "%\n";
    return kExitOutOfTolerance;
  }
  return status;
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Run a scenario for real on N ranks (spawning mpirun) and in simulation on the calibrated platform "
                  "with the same seed; compare throughput and wait (validation.json)");
  cmd->add_option("scenario", options->scenario, "scenario JSON file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--np", options->np, "ranks to run (the scenario's platform becomes localhost with this many)")
      ->required()
      ->check(CLI::Range(2, 4096));
  cmd->add_option("--out", options->out, "result directory (default: results/<scenario name>-validation)");
  cmd->add_option("--calibration", options->calibration,
                  "use this calibration instead of running quorum calibrate first")
      ->check(CLI::ExistingFile);
  cmd->add_option("--measured", options->measured,
                  "take the real runs from an earlier validate's result directory (and its calibration, unless "
                  "--calibration) instead of running them: this build's predictions against stored real runs")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--launcher", options->launcher,
                  "MPI launcher instead of the local mpirun, e.g. \"mpirun --hostfile hosts\" or \"srun -n {np}\"");
  cmd->add_option("--set", options->sets, "override a field by its dotted path")->type_name("KEY=VALUE");
  cmd->add_option("--tolerance", options->tolerance,
                  "exit with status 4 if any |relative error| of throughput exceeds this (e.g. 0.1)");
  cmd->add_flag("--quiet", options->quiet, "no progress on stderr");
  cmd->callback([options, &exit_code] {
    try {
      exit_code = validate_command(*options);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace quorum::cli
