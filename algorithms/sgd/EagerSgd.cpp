#include "algorithms/sgd/EagerSgd.hpp"

#include <algorithm>

#include "algorithms/StepClock.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

std::int64_t eager_kept_results(std::int64_t model_sync_every, std::int64_t collective_sync_every) {
  std::int64_t bound = kDefaultKeptResults;
  if (collective_sync_every > 0) bound = std::min(bound, std::max<std::int64_t>(1, collective_sync_every - 1));
  if (model_sync_every > 0) bound = std::min(bound, model_sync_every);
  return bound;
}

void EagerSgd::run(RankContext& ctx) {
  const Group world = Group::world(ctx.run.world_size);
  const float inv_p = 1.0f / static_cast<float>(ctx.run.world_size);
  const std::size_t n = ctx.trainer.num_params();
  PartialAllreduceConfig config =
      collective_ == ActivationPolicy::Solo
          ? solo_allreduce_config(ctx.run.iterations, ctx.run.model_bytes, n)
          : majority_allreduce_config(ctx.run.iterations, ctx.run.model_bytes, n, ctx.run.seed);
  config.synchronous_every = collective_sync_every_;
  config.late_result = late_result_;
  config.kept_results = eager_kept_results(model_sync_every_, collective_sync_every_);
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
      if (result.reused) ctx.observer.sample(ctx.comm.rank(), "updates_with_reused_result", 1.0);
      vec::scale(result.sum, inv_p);
      ctx.trainer.apply_gradient(result.sum);
    } else {
      // More than kept_results versions behind (no synchronisation bounds the lag): this version's sum was dropped.
      // Nothing to apply; the rank's gradient waits in the send buffer for the next version.
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
      {"model_sync_every", ParamType::Int, ParamValue{kPaperModelSyncEvery},
       "average the models with a synchronous allreduce every k steps (0: never); default: the paper's 10 epochs "
       "of ImageNet at 64 x 128 per step (sec. 7.2.2), 1,564 steps",
       {}, 0.0},
      {"schedule", ParamType::String, ParamValue{std::string("recursive_doubling")},
       "schedule of the partial allreduce once activated: recursive_doubling (fflib2's) or rabenseifner "
       "(reduce-scatter + allgather)",
       {"recursive_doubling", "rabenseifner"}, {}},
      {"collective_sync_every", ParamType::Int, ParamValue{std::int64_t{0}},
       "run every k-th gradient allreduce synchronously, bounding staleness to k-1 steps (fflib2's limiter: 33; "
       "0: never)",
       {}, 0.0},
      {"late_result", ParamType::String, ParamValue{std::string("own_version")},
       "which gradient sum a rank that comes late to its step applies: own_version (its step's, Fig. 7; kept for up "
       "to collective_sync_every - 1 or model_sync_every steps, else 32) or newest (the newest completed one, applied "
       "again until a newer one completes: fflib2's single receive buffer, as the reference implementation ran)",
       {"own_version", "newest"}, {}},
  };
  info.make = [](const AlgorithmParams& p, int) {
    const auto collective =
        p.get_string("collective") == "majority" ? ActivationPolicy::Majority : ActivationPolicy::Solo;
    PartialSchedule schedule = PartialSchedule::RecursiveDoubling;
    parse_partial_schedule(p.get_string("schedule"), schedule);
    LateResultPolicy late_result = LateResultPolicy::OwnVersion;
    parse_late_result(p.get_string("late_result"), late_result);
    return std::make_unique<EagerSgd>(collective, schedule, p.get_int("model_sync_every"),
                                      p.get_int("collective_sync_every"), late_result);
  };
  return info;
}

}  // namespace quorum
