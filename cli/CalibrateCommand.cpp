// quorum calibrate [--out FILE] [--scenario S [--set k=v ...]] [--ranks-per-node N]: under mpirun, measures latency, bandwidth and the
// proxy's step time and writes the localhost platform's calibration JSON (rank 0).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/Commands.hpp"
#include "cli/MpiCommands.hpp"
#include "sim/model/Results.hpp"
#include "sim/model/ScenarioLoader.hpp"
#include "validation/calibrate/Calibration.hpp"
#include "validation/calibrate/NativeSizes.hpp"
#include "validation/mpi/MpiEnvironment.hpp"

namespace quorum::cli {

namespace {

struct CalibrateOptions {
  std::string out = "calibration.json";
  std::string scenario;
  std::vector<std::string> sets;
  bool quick = false;
  int ranks_per_node = 0;
};

int calibrate_command(const CalibrateOptions& o) {
  const auto env = start_mpi_for_command();
  if (!env) return kExitFailure;
  const bool root = env->rank() == 0;
  if (env->size() < 2) {
    std::cerr << "error: quorum calibrate measures between ranks: run it under mpirun with at least 2 ranks, e.g. "
                 "scripts/mpirun-local -np 2 build/quorum calibrate\n";
    return kExitBadInput;
  }
  calibration::CalibrationOptions options;
  if (o.ranks_per_node > 0 && (o.ranks_per_node >= env->size() || env->size() % o.ranks_per_node != 0)) {
    if (root)
      std::cerr << "error: --ranks-per-node " << o.ranks_per_node << ": must divide the " << env->size()
                << " ranks into at least 2 nodes (allowed: a divisor of " << env->size() << " below it)\n";
    return kExitBadInput;
  }
  options.ranks_per_node = o.ranks_per_node;
  if (o.quick) {
    options.sizes = {65536, 1 << 20, 4 << 20};
    options.latency_round_trips = 100;
    options.seconds_per_size = 0.05;
    options.native_sizes = {4096, 1 << 20, 4 << 20};
    options.proxy_steps = 10;
  }
  if (!o.scenario.empty()) {
    try {
      const Scenario s = load_scenario_runs(o.scenario, o.sets).front().scenario;
      if (s.math.enabled()) options.proxy = s.math;
      options.seed = s.seed;
      // The native allreduce up to the scenario's own model size (NativeSizes.hpp).
      options.native_sizes = calibration::native_sizes_for_model(options.native_sizes, s.run_settings().model_bytes);
    } catch (const ScenarioError& e) {
      if (root) std::cerr << "error: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  try {
    const nlohmann::json result = calibration::calibrate(options);
    if (root) {
      const auto parent = std::filesystem::path(o.out).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent);
      write_file_atomic(o.out, result.dump(2) + "\n");
      std::printf("calibration on %d ranks (%s): latency %.2f us, bandwidth %.3f GB/s, proxy step %.3f ms "
                  "(%s; alone %.3f ms), sleep overshoot %.1f us\nwritten to %s (use it as platform.calibration)\n",
                  env->size(), result["figures_from"].get<std::string>().c_str(),
                  result["latency_s"].get<double>() * 1e6, result["bandwidth_Bps"].get<double>() * 1e-9,
                  result["proxy_step_s"].get<double>() * 1e3, result["proxy_model"].get<std::string>().c_str(),
                  result["proxy_step_solo_s"].get<double>() * 1e3, result["sleep_overshoot_s"].get<double>() * 1e6,
                  o.out.c_str());
      // What the backend adds to the MPI it runs on, pair by pair.
      for (const auto& pair : result["pairs"]) {
        std::printf("%s pair %d-%d, one-way time: Comm | plain MPI | ratio\n",
                    pair["same_node"].get<bool>() ? "same-node" : "inter-node", pair["ranks"][0].get<int>(),
                    pair["ranks"][1].get<int>());
        std::printf("  %10s  %9.2f us | %9.2f us | %5.2fx\n", "0 B", pair["latency_s"].get<double>() * 1e6,
                    pair["raw_mpi"]["latency_s"].get<double>() * 1e6,
                    pair["latency_s"].get<double>() / pair["raw_mpi"]["latency_s"].get<double>());
        for (const auto& size : pair["sizes"])
          std::printf("  %10.0f  %9.2f us | %9.2f us | %5.2fx\n", size["bytes"].get<double>(),
                      size["one_way_s"].get<double>() * 1e6, size["raw_mpi_one_way_s"].get<double>() * 1e6,
                      size["comm_over_raw"].get<double>());
        std::printf("  bandwidth %.3f GB/s | %.3f GB/s\n", pair["bandwidth_Bps"].get<double>() * 1e-9,
                    pair["raw_mpi"]["bandwidth_Bps"].get<double>() * 1e-9);
      }
      // The rate every rank sending at once gets, which the platform's memory-system link takes (the highest of the
      // sizes), beside plain MPI's: at 16 ranks with a core each Comm's 1 MiB exchange was seen far below it.
      for (const auto& x : result["concurrent_exchange"])
        std::printf("every rank sending %.0f B at once: %.3f GB/s | plain MPI %.3f GB/s\n",
                    x["bytes_per_rank"].get<double>(), x["aggregate_Bps"].get<double>() * 1e-9,
                    x["raw_mpi_aggregate_Bps"].get<double>() * 1e-9);
      std::printf("reduction %.2f GB/s per rank (every rank at once), %.2f GB/s alone; %d cores\n",
                  result["reduce_Bps"].get<double>() * 1e-9, result["reduce_alone_Bps"].get<double>() * 1e-9,
                  result["cores"].get<int>());
      if (result.contains("inter_node"))
        std::printf("%d nodes of %d ranks: inter-node latency %.2f us, adapter %.3f GB/s (every rank sending off "
                    "its node)\n",
                    env->size() / result["ranks_per_node"].get<int>(), result["ranks_per_node"].get<int>(),
                    result["inter_node"]["latency_s"].get<double>() * 1e6,
                    result["inter_node"]["adapter_Bps"].get<double>() * 1e-9);
    }
  } catch (const std::exception& e) {
    mpi::abort_job("error: calibration failed on rank " + std::to_string(env->rank()) + ": " + e.what(),
                   kExitRunFailed);
  }
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Under mpirun: measure latency, bandwidth and the proxy's step time; write a localhost platform "
                   "calibration (JSON with latency_s, bandwidth_Bps, proxy_step_s, ...)");
  cmd->add_option("--out", options->out, "calibration file to write (default: calibration.json)");
  cmd->add_option("--scenario", options->scenario, "take the proxy model (math) and seed from this scenario")
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", options->sets, "override a field of --scenario")->type_name("KEY=VALUE");
  cmd->add_flag("--quick", options->quick, "fewer sizes and repetitions (about a second)");
  cmd->add_option("--ranks-per-node", options->ranks_per_node,
                  "treat blocks of this many ranks as nodes (default: nodes are hosts, by name); for clusters whose "
                  "host names do not tell nodes apart, or to check the multi-node path on one machine");
  cmd->callback([options, &exit_code] { exit_code = calibrate_command(*options); });
}

}  // namespace quorum::cli
