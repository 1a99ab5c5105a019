#include "sim/simgrid/Simulation.hpp"

#include <algorithm>
#include <chrono>
#include <span>
#include <thread>

#include "kernels/Trainer.hpp"
#include "sim/model/RunConclusion.hpp"

namespace quorum {

SimulationOutput simulate(const Scenario& scenario) {
  const auto wall_start = std::chrono::steady_clock::now();
  const ComputeModel compute = scenario.compute_model();
  const RunSettings run = scenario.run_settings();
  const AlgorithmInfo& info = *find_algorithm(scenario.algorithm);

  auto math = make_math_setup(scenario.math, scenario.seed);
  std::vector<std::unique_ptr<Trainer>> trainers;
  trainers.reserve(static_cast<std::size_t>(scenario.ranks));
  for (int r = 0; r < scenario.ranks; ++r) trainers.push_back(std::make_unique<Trainer>(math, r, scenario.ranks));

  auto recorder = std::make_unique<RunRecorder>(scenario.name + "/" + scenario.algorithm, scenario.ranks,
                                                scenario.iterations, scenario.progress);
  if (info.service_ranks) recorder->set_service_ranks(info.service_ranks(scenario.algorithm_params, scenario.ranks));
  if (math->enabled() && scenario.math.eval_every > 0)
    recorder->snapshot_models(
        [&trainers](int r) { return std::span<const float>(trainers[static_cast<std::size_t>(r)]->params()); },
        scenario.math.eval_every);

  if (scenario.trace.enabled) recorder->enable_tracing(scenario.trace);

  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int math_threads = !math->enabled() ? 1 : scenario.math.threads > 0 ? scenario.math.threads : cores;
  run_ranks(
      scenario.platform, compute,
      [&](Comm& comm) {
        if (scenario.trace.enabled) comm.observe_waits(recorder.get());
        auto algorithm = info.make(scenario.algorithm_params, scenario.ranks);
        RankContext ctx{comm, *trainers[static_cast<std::size_t>(comm.rank())], run, scenario.algorithm_params,
                        *recorder};
        algorithm->run(ctx);
      },
      math_threads,
      MessagePaths{scenario.unshared_control_messages, scenario.direct_data_messages, scenario.flow_solve_window_s});
  recorder->finish_progress();

  std::vector<std::span<const float>> finals;
  for (const auto& t : trainers) finals.emplace_back(t->params());
  SimulationOutput out;
  try {
    out.summary = conclude_run(scenario, *recorder, *math, finals, wall_start, "simgrid");
  } catch (const IncompleteRun& e) {
    throw SimulationError(e.what());
  }
  out.recorder = std::move(recorder);
  for (auto& t : trainers) out.final_params.push_back(std::move(t->params()));
  return out;
}

}  // namespace quorum
