#include "algorithms/sgd/EagerSgd.hpp"

#include "algorithms/StepClock.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

void EagerSgd::run(RankContext& ctx) {
  const Group world = Group::world(ctx.run.world_size);
  const float inv_p = 1.0f / static_cast<float>(ctx.run.world_size);
  const std::size_t n = ctx.trainer.num_params();
  PartialAllreduceConfig config =
      collective_ == ActivationPolicy::Solo
          ? solo_allreduce_config(ctx.run.iterations, ctx.run.model_bytes, n)
          : majority_allreduce_config(ctx.run.iterations, ctx.run.model_bytes, n, ctx.run.seed);
  config.synchronous_every = collective_sync_every_;
  config.schedule = schedule_;
  config.observer = &ctx.observer;
  PartialAllreduce allreduce(ctx.comm, std::move(config));

  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.compute_gradient(step, grad); });
    PartialResult result = allreduce.call(grad);
    if (result.has_result()) {
      vec::scale(result.sum, inv_p);
      ctx.trainer.apply_gradient(result.sum);
    } else {
      // Lagging by two or more versions, this rank already used the newest result: nothing new to apply, and its
      // gradient waits in the send buffer for the next version.
      ctx.observer.sample(ctx.comm.rank(), "updates_without_new_result", 1.0);
    }
    if (model_sync_every_ > 0 && (step + 1) % model_sync_every_ == 0) {
      auto& params = ctx.trainer.params();
      allreduce_sum(ctx.comm, world, params, ctx.run.model_bytes, ctx.run.allreduce);
      vec::scale(params, inv_p);
    }
    clock.end();
  }
  allreduce.finish();
}

AlgorithmInfo EagerSgd::info() {
  AlgorithmInfo info;
  info.name = "eager_sgd";
  info.description =
      "eager-SGD: gradient averaging with a solo or majority partial allreduce, stale gradients accumulated";
  info.params = {
      {"collective", ParamType::String, ParamValue{std::string("solo")},
       "partial allreduce: solo (any rank triggers) or majority (a random initiator per step)",
       {"solo", "majority"}, {}},
      {"model_sync_every", ParamType::Int, ParamValue{std::int64_t{0}},
       "average the models with a synchronous allreduce every k steps (0: never)", {}, 0.0},
      {"schedule", ParamType::String, ParamValue{std::string("recursive_doubling")},
       "schedule of the partial allreduce once activated: recursive_doubling (fflib2's) or rabenseifner "
       "(reduce-scatter + allgather)",
       {"recursive_doubling", "rabenseifner"}, {}},
      {"collective_sync_every", ParamType::Int, ParamValue{std::int64_t{0}},
       "run every k-th gradient allreduce synchronously, bounding staleness to k-1 steps (fflib2's limiter: 33; "
       "0: never)",
       {}, 0.0},
  };
  info.make = [](const AlgorithmParams& p, int) {
    const auto collective =
        p.get_string("collective") == "majority" ? ActivationPolicy::Majority : ActivationPolicy::Solo;
    PartialSchedule schedule = PartialSchedule::RecursiveDoubling;
    parse_partial_schedule(p.get_string("schedule"), schedule);
    return std::make_unique<EagerSgd>(collective, schedule, p.get_int("model_sync_every"),
                                      p.get_int("collective_sync_every"));
  };
  return info;
}

}  // namespace quorum
