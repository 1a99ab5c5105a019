#include "algorithms/sgd/AllreduceSgd.hpp"

#include "algorithms/StepClock.hpp"
#include "algorithms/sgd/BucketReducer.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

void AllreduceSgd::run(RankContext& ctx) {
  if (overlap_ && ctx.run.world_size > 1) {
    run_overlapped(ctx);
    return;
  }
  const Group& world = ctx.run.world;
  const float inv_p = 1.0f / static_cast<float>(ctx.run.world_size);
  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.compute_gradient(step, grad); });
    allreduce_sum(ctx.comm, world, grad, ctx.run.model_bytes, ctx.run.allreduce);
    vec::scale(grad, inv_p);
    ctx.trainer.apply_gradient(grad);
    clock.end();
  }
}

// The step's compute is charged as the forward pass, then each bucket's share of the backward pass; as each
// bucket's part ends, its allreduce starts on the agent. The step ends when the last bucket is summed. Every real
// value is summed once, by the same allreduce over the same ranks as without overlap, so the models agree bit for
// bit wherever that allreduce sums each value in an order independent of its position in the vector.
void AllreduceSgd::run_overlapped(RankContext& ctx) {
  const float inv_p = 1.0f / static_cast<float>(ctx.run.world_size);
  const std::size_t real_values = ctx.trainer.enabled() ? ctx.trainer.num_params() : 0;
  BucketReducer reducer(ctx, make_gradient_buckets(ctx.run.gradients, ctx.run.model_bytes, bucket_bytes_,
                                                   real_values));
  const std::vector<double> parts = compute_parts(ctx.run.gradients, reducer.buckets());
  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    reducer.begin_step(step, grad);
    // Part 0 is the forward pass; part b + 1 ends with bucket b's last layer.
    clock.compute_in_parts([&] { ctx.trainer.compute_gradient(step, grad); }, parts,
                           [&](std::size_t part) {
                             if (part > 0) reducer.ready(part - 1);
                           });
    reducer.wait_all();
    vec::scale(grad, inv_p);
    ctx.trainer.apply_gradient(grad);
    clock.end();
  }
  reducer.finish();
}

AlgorithmInfo AllreduceSgd::info() {
  AlgorithmInfo info;
  info.name = "allreduce";
  info.description = "Allreduce-SGD: synchronous gradient averaging with an allreduce every step";
  info.params = {
      {"overlap", ParamType::Bool, ParamValue{false},
       "reduce the gradients in buckets during the backward pass (PyTorch DDP, Horovod), each as soon as its layers' "
       "gradients are ready, instead of one allreduce after the step (needs the workload's layer table; without "
       "one the model is a single bucket)",
       {}, {}},
      {"bucket_bytes", ParamType::Int, ParamValue{std::int64_t{25} << 20},
       "with overlap: layers in backward order fill a bucket until it holds at least this many bytes (PyTorch "
       "DDP's bucket_cap_mb default, 25 MiB)",
       {}, 1.0}};
  info.make = [](const AlgorithmParams& p, int) {
    return std::make_unique<AllreduceSgd>(p.get_bool("overlap"), static_cast<double>(p.get_int("bucket_bytes")));
  };
  return info;
}

}  // namespace quorum
