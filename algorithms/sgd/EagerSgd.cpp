#include "algorithms/sgd/EagerSgd.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "algorithms/StepClock.hpp"
#include "algorithms/sgd/GradientBuckets.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

std::int64_t eager_kept_results(std::int64_t model_sync_every, std::int64_t collective_sync_every) {
  std::int64_t bound = kDefaultKeptResults;
  if (collective_sync_every > 0) bound = std::min(bound, std::max<std::int64_t>(1, collective_sync_every - 1));
  if (model_sync_every > 0) bound = std::min(bound, model_sync_every);
  return bound;
}

PartialAllreduceConfig EagerSgd::config(const RankContext& ctx, double logical_bytes, std::size_t values) const {
  PartialAllreduceConfig config =
      collective_ == ActivationPolicy::Solo
          ? solo_allreduce_config(ctx.run.iterations, logical_bytes, values)
          : majority_allreduce_config(ctx.run.iterations, logical_bytes, values, ctx.run.seed);
  config.synchronous_every = collective_sync_every_;
  config.late_result = late_result_;
  config.kept_results = eager_kept_results(model_sync_every_, collective_sync_every_);
  config.schedule = schedule_;
  config.observer = &ctx.observer;
  config.result_ranks = false;  // reads the sum only
  return config;
}

void EagerSgd::apply_sum(RankContext& ctx, std::vector<float>& sum, bool has_result, bool reused) const {
  if (!has_result) {
    // More than kept_results versions behind (no synchronisation bounds the lag): this version's sum was dropped.
    // Nothing to apply; the rank's gradient waits in the send buffer for the next version.
    ctx.observer.sample(ctx.comm.rank(), "updates_without_new_result", 1.0);
    return;
  }
  if (reused) ctx.observer.sample(ctx.comm.rank(), "updates_with_reused_result", 1.0);
  vec::scale(sum, 1.0f / static_cast<float>(ctx.run.world_size));
  ctx.trainer.apply_gradient(sum);
}

void EagerSgd::average_models(RankContext& ctx, std::int64_t step) const {
  if (model_sync_every_ <= 0 || (step + 1) % model_sync_every_ != 0) return;
  auto& params = ctx.trainer.params();
  allreduce_sum(ctx.comm, ctx.run.world, params, ctx.run.model_bytes, ctx.run.allreduce);
  vec::scale(params, 1.0f / static_cast<float>(ctx.run.world_size));
}

void EagerSgd::run(RankContext& ctx) {
  if (overlap_ && ctx.run.world_size > 1) {
    run_overlapped(ctx);
    return;
  }
  const std::size_t n = ctx.trainer.num_params();
  PartialAllreduce allreduce(ctx.comm, config(ctx, ctx.run.model_bytes, n));

  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.compute_gradient(step, grad); });
    PartialResult result = allreduce.call(grad);
    apply_sum(ctx, result.sum, result.has_result(), result.reused);
    average_models(ctx, step);
    clock.end();
  }
  allreduce.finish();
}

void EagerSgd::run_overlapped(RankContext& ctx) {
  const std::size_t n = ctx.trainer.num_params();
  const auto buckets = make_gradient_buckets(ctx.run.gradients, ctx.run.model_bytes, bucket_bytes_, n);
  if (buckets.size() > kMaxPartialInstances)
    throw std::invalid_argument("eager_sgd with overlap: " + std::to_string(buckets.size()) +
                                " gradient buckets, at most " + std::to_string(kMaxPartialInstances) +
                                " partial allreduces can run at once: raise algorithm.bucket_bytes");
  const std::vector<double> parts = compute_parts(ctx.run.gradients, buckets);
  std::vector<std::unique_ptr<PartialAllreduce>> collectives;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    PartialAllreduceConfig c = config(ctx, buckets[b].logical_bytes, buckets[b].end - buckets[b].begin);
    c.instance = static_cast<int>(b);
    collectives.push_back(std::make_unique<PartialAllreduce>(ctx.comm, std::move(c)));
  }
  std::vector<PartialAllreduce::PendingCall> pending(buckets.size());
  std::vector<float> grad, sum(n);
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    // Part 0 is the forward pass; as part b + 1 ends, bucket b's gradient goes into its collective's send buffer
    // and activates its version (solo) without waiting for it.
    clock.compute_in_parts([&] { ctx.trainer.compute_gradient(step, grad); }, parts, [&](std::size_t part) {
      if (part == 0) return;
      const GradientBucket& bucket = buckets[part - 1];
      pending[part - 1] = collectives[part - 1]->submit(
          std::vector<float>(grad.begin() + static_cast<std::ptrdiff_t>(bucket.begin),
                             grad.begin() + static_cast<std::ptrdiff_t>(bucket.end)));
    });
    bool any = false, reused = false;
    std::fill(sum.begin(), sum.end(), 0.0f);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const PartialResult r = collectives[b]->complete(pending[b]);
      if (!r.has_result()) continue;  // dropped beyond kept_results: this bucket applies nothing this step
      any = true;
      reused = reused || r.reused;
      std::copy(r.sum.begin(), r.sum.end(), sum.begin() + static_cast<std::ptrdiff_t>(buckets[b].begin));
    }
    apply_sum(ctx, sum, any, reused);
    average_models(ctx, step);
    clock.end();
  }
  for (auto& c : collectives) c->finish();
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
      {"overlap", ParamType::Bool, ParamValue{false},
       "one partial allreduce per gradient bucket, each activated as soon as its layers' backward part is done "
       "(the paper's per-layer partial allreduces, sec. 3, Fig. 5); needs the workload's layer table",
       {}, {}},
      {"bucket_bytes", ParamType::Int, ParamValue{std::int64_t{25} << 20},
       "with overlap: layers in backward order fill a bucket until it holds at least this many bytes (1: one "
       "collective per layer)",
       {}, 1.0},
  };
  info.make = [](const AlgorithmParams& p, int) {
    const auto collective =
        p.get_string("collective") == "majority" ? ActivationPolicy::Majority : ActivationPolicy::Solo;
    PartialSchedule schedule = PartialSchedule::RecursiveDoubling;
    parse_partial_schedule(p.get_string("schedule"), schedule);
    LateResultPolicy late_result = LateResultPolicy::OwnVersion;
    parse_late_result(p.get_string("late_result"), late_result);
    return std::make_unique<EagerSgd>(collective, schedule, p.get_int("model_sync_every"),
                                      p.get_int("collective_sync_every"), late_result, p.get_bool("overlap"),
                                      static_cast<double>(p.get_int("bucket_bytes")));
  };
  return info;
}

}  // namespace quorum
