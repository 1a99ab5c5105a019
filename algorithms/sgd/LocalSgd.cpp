#include "algorithms/sgd/LocalSgd.hpp"

#include "algorithms/StepClock.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

void LocalSgd::run(RankContext& ctx) {
  const Group& world = ctx.run.world;
  const float inv_p = 1.0f / static_cast<float>(ctx.run.world_size);
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.local_step(step); });
    if ((step + 1) % tau_ == 0) {
      auto& params = ctx.trainer.params();
      allreduce_sum(ctx.comm, world, params, ctx.run.model_bytes, ctx.run.allreduce);
      vec::scale(params, inv_p);
    }
    clock.end();
  }
}

AlgorithmInfo LocalSgd::info() {
  AlgorithmInfo info;
  info.name = "local_sgd";
  info.description = "local SGD: tau local steps, then synchronous model averaging (tau=1: sync model averaging)";
  info.params = {{"tau", ParamType::Int, ParamValue{std::int64_t{10}}, "local steps between global averages", {}, 1.0}};
  info.make = [](const AlgorithmParams& p, int) { return std::make_unique<LocalSgd>(p.get_int("tau")); };
  return info;
}

}  // namespace quorum
