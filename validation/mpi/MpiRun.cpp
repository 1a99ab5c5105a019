#include "validation/mpi/MpiRun.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include "kernels/Trainer.hpp"
#include "sim/model/Results.hpp"
#include "sim/model/RunConclusion.hpp"
#include "validation/gpu/GpuSupport.hpp"
#include "validation/mpi/FatalSignals.hpp"
#include "validation/mpi/MpiAllreduce.hpp"
#include "validation/mpi/MpiComm.hpp"
#include "validation/mpi/MpiEnvironment.hpp"
#include "validation/mpi/MpiError.hpp"
#include "validation/mpi/WaitMode.hpp"
#include "validation/mpi/RankRecord.hpp"
#include "validation/mpi/Watchdog.hpp"

namespace quorum::mpi {

namespace {

// Forwards to the rank's recorder and tells the runtime (hence the watchdog) how far the rank got.
class TrackingObserver final : public StepObserver {
 public:
  TrackingObserver(RunRecorder& recorder, RankRuntime& runtime) : recorder_(recorder), runtime_(runtime) {}
  void step_done(const StepRecord& record) override {
    recorder_.step_done(record);
    if (record.rank == runtime_.rank()) runtime_.step_done(record.step);
  }
  void sample(int rank, const std::string& metric, double value) override { recorder_.sample(rank, metric, value); }
  void histogram(int rank, const std::string& name, std::int64_t bucket) override {
    recorder_.histogram(rank, name, bucket);
  }
  void table_row(const std::string& table, const std::vector<std::pair<std::string, double>>& row) override {
    recorder_.table_row(table, row);
  }
  bool tracing() const override { return recorder_.tracing(); }
  void span(const TraceSpan& span) override { recorder_.span(span); }

 private:
  RunRecorder& recorder_;
  RankRuntime& runtime_;
};

// Every rank checks the same things, so every rank throws the same ScenarioError and nobody waits for the others.
void check_job_fits(const Scenario& s, int world_size) {
  if (s.ranks != world_size)
    throw ScenarioError("platform.nodes",
                        "the scenario has " + std::to_string(s.ranks) + " ranks but the MPI job has " +
                            std::to_string(world_size) + " (run it with mpirun -np " + std::to_string(s.ranks) +
                            ", or --set platform.nodes=" + std::to_string(world_size) + ")");
}

nlohmann::json compute_stats_json(const ComputeStats& c) {
  return {{"steps", c.steps},         {"math_s", c.math_s},          {"injected_s", c.injected_s},
          {"overshoot_s", c.overshoot_s}, {"max_overshoot_s", c.max_overshoot_s}, {"overruns", c.overruns},
          {"overrun_s", c.overrun_s}};
}

// Sums the ranks' backend statistics into summary.json's "mpi" block.
nlohmann::json backend_summary(const Scenario& s, const std::vector<nlohmann::json>& per_rank,
                               const nlohmann::json& native_stats) {
  double math = 0, injected = 0, overshoot = 0, max_overshoot = 0, overrun_s = 0, bytes = 0;
  std::int64_t steps = 0, overruns = 0, leftover_sends = 0, leftover_receives = 0, messages = 0;
  std::map<std::string, int> hosts, progress;
  for (const auto& b : per_rank) {
    ++progress[b["progress"].get<std::string>()];
    const auto& c = b["compute"];
    steps += c["steps"].get<std::int64_t>();
    math += c["math_s"].get<double>();
    injected += c["injected_s"].get<double>();
    overshoot += c["overshoot_s"].get<double>();
    max_overshoot = std::max(max_overshoot, c["max_overshoot_s"].get<double>());
    overruns += c["overruns"].get<std::int64_t>();
    overrun_s += c["overrun_s"].get<double>();
    const auto& e = b["engine"];
    messages += e["sends"].get<std::int64_t>();
    bytes += e["bytes_sent"].get<double>();
    leftover_sends += e["leftover_sends"].get<std::int64_t>();
    leftover_receives += e["leftover_receives"].get<std::int64_t>();
    ++hosts[b["host"].get<std::string>()];
  }
  const double n = std::max<double>(1.0, static_cast<double>(steps));
  return {{"library", MpiEnvironment::library_version()},
          {"hosts", hosts},
          {"compute", s.mpi.compute},
          {"message_bytes", s.mpi.message_bytes},
          {"device", s.mpi.device},
          {"progress", progress},
          {"native_allreduce", s.mpi.native_allreduce ? native_stats : nlohmann::json(nullptr)},
          {"time_source", "MPI_Wtime, every rank's clock started after a common barrier"},
          {"mean_math_s", math / n},
          {"mean_injected_s", injected / n},
          {"mean_sleep_overshoot_s", overshoot / n},
          {"max_sleep_overshoot_s", max_overshoot},
          {"compute_overruns", overruns},
          {"compute_overrun_s", overrun_s},
          {"point_to_point_messages", messages},
          {"point_to_point_wire_bytes", bytes},
          {"unmatched_sends_at_end", leftover_sends},
          {"pending_receives_at_end", leftover_receives}};
}

}  // namespace

MpiRunOutput run_scenario_mpi(const Scenario& scenario, const std::string& out_dir) {
  const auto wall_start = std::chrono::steady_clock::now();
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  check_job_fits(scenario, world_size);
  if (scenario.mpi.gpu()) {
    const gpu::GpuProbe probe = gpu::probe();
    if (!all_ranks_agree(probe.usable()))
      throw ScenarioError("mpi.device", "gpu was asked for, but " +
                                            (probe.usable() ? std::string("another rank has no usable CUDA device")
                                                            : probe.reason) +
                                            "; use \"cpu\"");
  }
  const double slow_link_Bps = rank_link_bandwidth_Bps(scenario.platform);
  if (scenario.imbalance.kind == "slow_link" && slow_link_Bps <= 0)
    throw ScenarioError("imbalance.kind", "slow_link on the MPI backend holds sends back by the modelled extra "
                                          "transfer time, which needs the bandwidth of a rank's link: an xml platform "
                                          "does not give it (use localhost, generic, piz_daint or maverick2)");
  install_fatal_signal_reporting(world_rank);

  MpiWorld world;
  RankRuntime runtime(world, scenario.compute_model(), scenario.mpi);
  runtime.set_slow_link_bandwidth(slow_link_Bps);
  const int rank = runtime.rank();
  WatchdogOptions wd;
  wd.timeout_s = scenario.mpi.timeout_s;
  wd.progress = scenario.progress && rank == 0;
  wd.label = scenario.name + "/" + scenario.algorithm;
  wd.iterations = scenario.iterations;
  wd.silence_s = std::max(15.0, 60 * wd.heartbeat_s);
  Watchdog watchdog(runtime, world.control(), wd);

  std::unique_ptr<Trainer> trainer;
  std::shared_ptr<const MathSetup> math;
  const RunSettings run = scenario.run_settings();
  auto recorder = std::make_unique<RunRecorder>(wd.label, scenario.ranks, scenario.iterations, false);
  try {
    auto setup = make_math_setup(scenario.math, scenario.seed);
    if (scenario.mpi.gpu()) {
      gpu::select_device(MPI_COMM_WORLD);
      auto on_gpu = std::make_shared<MathSetup>(*setup);
      if (on_gpu->model) on_gpu->model = gpu::make_gpu_model(*setup);
      setup = on_gpu;
    }
    math = setup;
    if (scenario.mpi.native_allreduce) {
      if (scenario.mpi.gpu())
        runtime.set_native(gpu::make_nccl_allreduce(world.collectives(), scenario.mpi.pad_to_logical()));
      else
        runtime.set_native(std::make_unique<MpiAllreduce>(world.collectives(), scenario.mpi.pad_to_logical()));
    }
    trainer = std::make_unique<Trainer>(math, rank, scenario.ranks);
  } catch (const std::exception& e) {
    runtime.fail("", std::string("setting up the run: ") + e.what());
  }
  if (math->enabled() && scenario.math.eval_every > 0)
    recorder->snapshot_models([&trainer](int) { return std::span<const float>(trainer->params()); },
                              scenario.math.eval_every);
  if (scenario.trace.enabled) recorder->enable_tracing(scenario.trace);
  const AlgorithmInfo& info = *find_algorithm(scenario.algorithm);
  // Ranks that train no steps (parameter servers) are neither waited for nor counted, as in simulation.
  const std::vector<int> service_ranks =
      info.service_ranks ? info.service_ranks(scenario.algorithm_params, scenario.ranks) : std::vector<int>{};
  recorder->set_service_ranks(service_ranks);
  TrackingObserver observer(*recorder, runtime);
  auto algorithm = info.make(scenario.algorithm_params, scenario.ranks);

  runtime.start_clock();
  {
    MpiComm comm(runtime, "main");
    if (scenario.trace.enabled) comm.observe_waits(recorder.get());
    RankContext ctx{comm, *trainer, run, scenario.algorithm_params, observer};
    try {
      algorithm->run(ctx);
    } catch (const std::exception& e) {
      runtime.fail("", e.what());
    }
  }
  // Agents must have ended with the program (the simulator reports the same as an error).
  const auto agents_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (runtime.live_agents() > 0 && std::chrono::steady_clock::now() < agents_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (runtime.live_agents() > 0)
    runtime.fail("", std::to_string(runtime.live_agents()) +
                         " progress agents were still running after the rank's program returned: the algorithm does "
                         "not shut its agents down");
  // Nobody withdraws its pending receives before every rank is done sending.
  runtime.quiet_barrier("MPI_Ibarrier (end of the run)");
  const nlohmann::json native_stats = runtime.native() ? runtime.native()->stats() : nlohmann::json(nullptr);
  const EngineStats engine = runtime.engine()->stats();
  runtime.shutdown();
  const EngineStats final_engine = runtime.engine()->stats();
  nlohmann::json backend = {
      {"host", MpiEnvironment::processor_name()},
      {"progress", to_string(runtime.wait_mode())},
      {"compute", compute_stats_json(runtime.compute_stats())},
      {"engine",
       {{"sends", engine.sends},
        {"bytes_sent", engine.bytes_sent},
        {"leftover_sends", final_engine.leftover_sends},
        {"leftover_receives", final_engine.leftover_receives}}}};
  const auto records =
      gather_json(world.control(), 0, encode_rank_record(*recorder, rank, trainer->params(), backend));
  watchdog.stop();

  MpiRunOutput out;
  std::string failure;
  if (rank == 0) try {
    RunRecorder merged(wd.label, scenario.ranks, scenario.iterations, false);
    merged.set_service_ranks(service_ranks);
    merged.replaying_records();
    std::vector<nlohmann::json> backends;
    for (const auto& r : records) backends.push_back(merge_rank_record(r, merged, out.final_params));
    std::vector<std::span<const float>> finals;
    for (const auto& p : out.final_params) finals.emplace_back(p);
    try {
      out.summary = conclude_run(scenario, merged, *math, finals, wall_start, "mpi");
      out.summary["mpi"] = backend_summary(scenario, backends, native_stats);
      if (!out_dir.empty()) write_run_directory(out_dir, scenario, out.summary, merged, out.final_params);
    } catch (const IncompleteRun& e) {
      failure = e.what();
    }
  } catch (const std::exception& e) {
    failure = std::string("writing the results: ") + e.what();
  }
  int failed = failure.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failed) throw RunFailed(rank == 0 ? failure : "the run failed (see rank 0)");
  return out;
}

}  // namespace quorum::mpi
