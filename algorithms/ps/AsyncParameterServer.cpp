#include "algorithms/ps/AsyncParameterServer.hpp"

#include <algorithm>
#include <stdexcept>

#include "algorithms/StepClock.hpp"
#include "algorithms/collectives/Partition.hpp"
#include "kernels/optim/SgdOptimizer.hpp"

namespace quorum {

namespace {

enum Kind : std::int64_t { kPush = 0, kLastPush = 1 };
constexpr Tag kPushTag = tags::make(Channel::ParameterServer, 0);
constexpr Tag kReplyTag = tags::make(Channel::ParameterServer, 1);
constexpr Tag kFinalTag = tags::make(Channel::ParameterServer, 2);

}  // namespace

void AsyncParameterServer::run(RankContext& ctx) {
  const int world = ctx.run.world_size;
  if (world == 1) {
    StepClock clock(ctx);
    for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
      clock.begin(step);
      clock.compute([&] { ctx.trainer.local_step(step); });
      clock.end();
    }
    return;
  }
  const int rank = ctx.comm.rank();
  if (rank < servers_) serve(ctx, rank, servers_);
  else work(ctx, servers_);
}

void AsyncParameterServer::serve(RankContext& ctx, int shard, int shards) {
  Comm& comm = ctx.comm;
  auto& model = ctx.trainer.params();
  const BlockPartition part{model.size(), ctx.run.model_bytes, shards};
  const std::size_t begin = part.begin_of(shard), end = part.end_of(shard + 1);
  SgdOptimizer optimizer(ctx.trainer.setup().config.sgd, end - begin);
  const std::span<float> mine = part.span(model, shard, shard + 1);
  const double shard_bytes = part.bytes_of(shard, shard + 1);
  std::int64_t version = 0;  // updates applied so far
  // One receive posted per worker (each has at most one push in flight), so pushes from many workers stream in
  // at once and share the server's link, as the many connections of a real server do; they are applied in the
  // order they complete.
  const int first_worker = shards;
  std::vector<RequestPtr> receives;
  std::vector<int> from;
  for (int w = first_worker; w < ctx.run.world_size; ++w) {
    receives.push_back(comm.irecv(w, kPushTag));
    from.push_back(w);
  }
  while (!receives.empty()) {
    const std::size_t i = comm.wait_any(receives);
    Message m = comm.take(receives[i]);
    const auto& ints = m.payload.ints;
    // The learning rate of the pushing worker's step (ints: kind, version, step), as if it had applied it itself.
    if (ctx.trainer.enabled()) optimizer.apply(mine, m.payload.values, ints.at(2));
    ctx.observer.histogram(comm.rank(), "async_ps.staleness", version - ints.at(1));
    ++version;
    comm.post(m.source, kReplyTag, Payload{std::vector<float>(mine.begin(), mine.end()), {version}}, shard_bytes);
    if (ints.at(0) == kLastPush) {
      receives.erase(receives.begin() + static_cast<std::ptrdiff_t>(i));
      from.erase(from.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      receives[i] = comm.irecv(from[i], kPushTag);
    }
  }
  ctx.observer.sample(comm.rank(), "async_ps.updates_per_server", static_cast<double>(version));
  // Every worker is done: everyone gets the final shard, and the servers assemble the whole model too.
  std::vector<RequestPtr> sends;
  for (int r = 0; r < ctx.run.world_size; ++r)
    if (r != comm.rank())
      sends.push_back(comm.isend(r, kFinalTag, Payload{std::vector<float>(mine.begin(), mine.end()), {}}, shard_bytes));
  for (int s = 0; s < shards; ++s) {
    if (s == shard) continue;
    const Message m = comm.recv(s, kFinalTag);
    std::copy(m.payload.values.begin(), m.payload.values.end(), part.span(model, s, s + 1).begin());
  }
  comm.wait_all(sends);
}

void AsyncParameterServer::work(RankContext& ctx, int shards) {
  Comm& comm = ctx.comm;
  auto& model = ctx.trainer.params();
  const BlockPartition part{model.size(), ctx.run.model_bytes, shards};
  std::vector<std::int64_t> version(static_cast<std::size_t>(shards), 0);  // of each shard this worker holds
  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.compute_gradient(step, grad); });
    const std::int64_t kind = step + 1 == ctx.run.iterations ? kLastPush : kPush;
    std::vector<RequestPtr> replies, pushes;
    for (int s = 0; s < shards; ++s) {
      replies.push_back(comm.irecv(s, kReplyTag));
      Payload p{grad.empty() ? std::vector<float>{} : part.copy(grad, s, s + 1),
                {kind, version[static_cast<std::size_t>(s)], step}};
      pushes.push_back(comm.isend(s, kPushTag, std::move(p), part.bytes_of(s, s + 1)));
    }
    comm.wait_all(pushes);
    comm.wait_all(replies);
    for (int s = 0; s < shards; ++s) {
      Message m = comm.take(replies[static_cast<std::size_t>(s)]);
      version[static_cast<std::size_t>(s)] = m.payload.ints.at(0);
      std::copy(m.payload.values.begin(), m.payload.values.end(), part.span(model, s, s + 1).begin());
    }
    clock.end();
  }
  for (int s = 0; s < shards; ++s) {
    const Message m = comm.recv(s, kFinalTag);
    std::copy(m.payload.values.begin(), m.payload.values.end(), part.span(model, s, s + 1).begin());
  }
}

AlgorithmInfo AsyncParameterServer::info() {
  AlgorithmInfo info;
  info.name = "async_ps";
  info.description =
      "asynchronous parameter server: ranks 0..servers-1 serve model shards (they do not train), the rest push "
      "gradients and pull the model";
  info.params = {{"servers", ParamType::Int, ParamValue{std::int64_t{1}},
                  "server ranks (0..servers-1), each holding one shard of the model; they do not train", {}, 1.0}};
  info.validate = [](const AlgorithmParams& p, int world_size) -> std::string {
    if (world_size > 1 && p.get_int("servers") >= world_size)
      return "servers: " + std::to_string(p.get_int("servers")) + " server ranks leave no worker among " +
             std::to_string(world_size) + " ranks; use at most " + std::to_string(world_size - 1);
    return {};
  };
  info.service_ranks = [](const AlgorithmParams& p, int world_size) {
    std::vector<int> servers;
    if (world_size > 1)
      for (int r = 0; r < p.get_int("servers"); ++r) servers.push_back(r);
    return servers;
  };
  info.make = [](const AlgorithmParams& p, int) {
    return std::make_unique<AsyncParameterServer>(static_cast<int>(p.get_int("servers")));
  };
  return info;
}

}  // namespace quorum
