#include "algorithms/prague/PReduce.hpp"

#include "kernels/optim/VectorOps.hpp"

namespace quorum {

void p_reduce_average(RankContext& ctx, const std::vector<int>& members) {
  if (members.size() <= 1) return;
  Group group;
  group.members = members;
  AllreduceOptions options = ctx.run.allreduce;
  options.channel = Channel::PReduce;
  auto& params = ctx.trainer.params();
  allreduce_sum(ctx.comm, group, params, ctx.run.model_bytes, options);
  vec::scale(params, 1.0f / static_cast<float>(members.size()));
}

}  // namespace quorum
