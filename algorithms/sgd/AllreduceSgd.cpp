#include "algorithms/sgd/AllreduceSgd.hpp"

#include "algorithms/StepClock.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

void AllreduceSgd::run(RankContext& ctx) {
  const Group world = Group::world(ctx.run.world_size);
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

AlgorithmInfo AllreduceSgd::info() {
  AlgorithmInfo info;
  info.name = "allreduce";
  info.description = "Allreduce-SGD: synchronous gradient averaging with an allreduce every step";
  info.make = [](const AlgorithmParams&, int) { return std::make_unique<AllreduceSgd>(); };
  return info;
}

}  // namespace quorum
