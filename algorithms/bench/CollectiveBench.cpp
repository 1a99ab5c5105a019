#include "algorithms/bench/CollectiveBench.hpp"

#include "algorithms/StepClock.hpp"
#include "algorithms/collectives/Barrier.hpp"
#include "algorithms/collectives/PartialAllreduce.hpp"
#include "algorithms/sgd/WagmaSgd.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

void CollectiveBench::run(RankContext& ctx) {
  const int p = ctx.run.world_size, rank = ctx.comm.rank();
  const Group world = Group::world(p);
  const double bytes = settings_.message_bytes > 0 ? settings_.message_bytes : ctx.run.model_bytes;
  const std::int64_t n = ctx.run.iterations;
  // The reduced vector is the step's gradient (empty with math off); its simulated size is `bytes`.
  const std::size_t elements = ctx.trainer.num_params();
  std::unique_ptr<PartialAllreduce> partial;
  if (settings_.collective != "sync") {
    PartialAllreduceConfig config;
    if (settings_.collective == "solo") config = solo_allreduce_config(n, bytes, elements);
    else if (settings_.collective == "majority") config = majority_allreduce_config(n, bytes, elements, ctx.run.seed);
    else config = solo_allreduce_config(n, bytes, elements);
    if (settings_.collective == "group") {
      config.grouping.emplace(p, settings_.group_size);
      config.schedule_channel = Channel::GroupAllreduce;
    }
    config.observer = &ctx.observer;
    config.schedule = settings_.schedule;
    partial = std::make_unique<PartialAllreduce>(ctx.comm, std::move(config));
  }

  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t i = 0; i < n; ++i) {
    clock.begin(i);
    clock.compute([&] { ctx.trainer.compute_gradient(i, grad); });
    const double begin = ctx.comm.now();
    PartialResult result;
    if (partial) {
      result = partial->call(grad);
    } else {
      allreduce_sum(ctx.comm, world, grad, bytes, ctx.run.allreduce);
      result.version = i;
      result.sum = std::move(grad);
      result.group = world.members;
      // A synchronous allreduce waits for everyone: every contribution is fresh.
      ctx.observer.sample(rank, "fresh_contribution", 1.0);
      ctx.observer.histogram(rank, "staleness", 0);
      if (rank == 0) ctx.observer.sample(rank, "active_processes", p);
    }
    ctx.observer.sample(rank, "latency_s", ctx.comm.now() - begin);
    if (result.has_result()) {  // with math on, the benchmark also trains: apply the reduction's mean
      vec::scale(result.sum, 1.0f / static_cast<float>(result.group.size()));
      ctx.trainer.apply_gradient(result.sum);
    }
    if (settings_.barrier) barrier(ctx.comm, world);
    clock.end();
  }
  if (partial) partial->finish();
}

AlgorithmInfo CollectiveBench::info() {
  AlgorithmInfo info;
  info.name = "collective_bench";
  info.description =
      "microbenchmark (eager-SGD Fig. 8/9): compute, then time one sync/solo/majority/group allreduce per iteration";
  info.params = {
      {"collective", ParamType::String, ParamValue{std::string("solo")}, "the collective timed",
       {"sync", "solo", "majority", "group"}, {}},
      {"message_bytes", ParamType::Double, ParamValue{0.0},
       "simulated size of the reduced vector in bytes (0: the workload's model size)", {}, 0.0},
      {"group_size", ParamType::Int, std::nullopt,
       "group: ranks per group, a power of two <= P (default sqrt(P) rounded up to a power of two)", {}, 1.0},
      {"schedule", ParamType::String, ParamValue{std::string("recursive_doubling")},
       "schedule of solo, majority and group once activated: recursive_doubling (fflib2's) or rabenseifner "
       "(reduce-scatter + allgather)",
       {"recursive_doubling", "rabenseifner"}, {}},
      {"barrier", ParamType::Bool, ParamValue{true}, "synchronise all ranks after every iteration (Fig. 8 line 12)",
       {}, {}},
  };
  info.derive = [](AlgorithmParams& params, int world_size) {
    if (!params.has("group_size")) params.set("group_size", std::int64_t{default_group_size(world_size)});
  };
  info.validate = [](const AlgorithmParams& params, int world_size) -> std::string {
    if (params.get_string("collective") != "group") return "";
    const std::int64_t s = params.get_int("group_size");
    if (!is_power_of_two(world_size))
      return "collective: the group allreduce needs a power-of-two number of ranks, the platform has " +
             std::to_string(world_size);
    if (!is_power_of_two(s) || s > world_size)
      return "group_size: must be a power of two between 1 and the number of ranks (" + std::to_string(world_size) +
             "), got " + std::to_string(s);
    return "";
  };
  info.make = [](const AlgorithmParams& p, int) {
    CollectiveBenchSettings s;
    s.collective = p.get_string("collective");
    s.message_bytes = p.get_double("message_bytes");
    s.group_size = static_cast<int>(p.get_int("group_size"));
    s.barrier = p.get_bool("barrier");
    parse_partial_schedule(p.get_string("schedule"), s.schedule);
    return std::make_unique<CollectiveBench>(s);
  };
  return info;
}

}  // namespace quorum
