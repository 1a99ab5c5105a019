#include "algorithms/ps/AsyncParameterServer.hpp"

#include <algorithm>

#include "algorithms/StepClock.hpp"
#include "algorithms/ps/ShardServer.hpp"
#include "kernels/optim/SgdOptimizer.hpp"

namespace quorum {

void AsyncParameterServer::run(RankContext& ctx) {
  run_servers_and_workers(
      ctx, servers_, [&](const BlockPartition& part) { serve(ctx, part); },
      [&](const BlockPartition& part) { work(ctx, part); });
}

void AsyncParameterServer::serve(RankContext& ctx, const BlockPartition& part) {
  const int shard = ctx.comm.rank();
  SgdOptimizer optimizer(ctx.trainer.setup().config.sgd, part.end_of(shard + 1) - part.begin_of(shard));
  // A pushed gradient is applied as it arrives, at the learning rate of the pushing worker's step, as if it had
  // applied it itself; the reply is the updated shard.
  const auto apply = [&](std::span<float> mine, const ShardPush& push, std::vector<float>& reply) {
    if (ctx.trainer.enabled()) optimizer.apply(mine, push.values, push.step);
    reply.assign(mine.begin(), mine.end());
  };
  const ShardServeStats stats = serve_shard(ctx, part, apply, "async_ps.staleness");
  ctx.observer.sample(shard, "async_ps.updates_per_server", static_cast<double>(stats.updates));
}

void AsyncParameterServer::work(RankContext& ctx, const BlockPartition& part) {
  auto& model = ctx.trainer.params();
  ShardClient servers(ctx.comm, part);
  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.compute_gradient(step, grad); });
    const auto& shards = servers.exchange(grad, step, step + 1 == ctx.run.iterations);
    for (int s = 0; s < part.blocks; ++s)
      std::copy(shards[static_cast<std::size_t>(s)].begin(), shards[static_cast<std::size_t>(s)].end(),
                part.span(model, s, s + 1).begin());
    clock.end();
  }
  servers.receive_final_model(model);
}

AlgorithmInfo AsyncParameterServer::info() {
  AlgorithmInfo info;
  info.name = "async_ps";
  info.description =
      "asynchronous parameter server: ranks 0..servers-1 serve model shards (they do not train), the rest push "
      "gradients and pull the model";
  info.params = {{"servers", ParamType::Int, ParamValue{std::int64_t{1}},
                  "server ranks (0..servers-1), each holding one shard of the model; they do not train", {}, 1.0}};
  info.validate = check_servers;
  info.service_ranks = server_ranks;
  info.make = [](const AlgorithmParams& p, int) {
    return std::make_unique<AsyncParameterServer>(static_cast<int>(p.get_int("servers")));
  };
  return info;
}

}  // namespace quorum
