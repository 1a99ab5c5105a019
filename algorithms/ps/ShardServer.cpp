#include "algorithms/ps/ShardServer.hpp"

#include <algorithm>

#include "algorithms/StepClock.hpp"
#include "algorithms/comm/RequestList.hpp"

namespace quorum {

namespace {

// ints of a push: kind, the version of the shard the worker last heard of, the worker's local step.
enum PushKind : std::int64_t { kPush = 0, kLastPush = 1 };
constexpr Tag kPushTag = tags::make(Channel::ParameterServer, 0);
constexpr Tag kReplyTag = tags::make(Channel::ParameterServer, 1);
constexpr Tag kFinalTag = tags::make(Channel::ParameterServer, 2);

}  // namespace

void run_servers_and_workers(RankContext& ctx, int servers,
                             const std::function<void(const BlockPartition&)>& serve,
                             const std::function<void(const BlockPartition&)>& work) {
  if (ctx.run.world_size == 1) {
    StepClock clock(ctx);
    for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
      clock.begin(step);
      clock.compute([&] { ctx.trainer.local_step(step); });
      clock.end();
    }
    return;
  }
  const BlockPartition part{ctx.trainer.num_params(), ctx.run.model_bytes, servers};
  if (ctx.comm.rank() < servers) serve(part);
  else work(part);
}

std::string check_servers(const AlgorithmParams& p, int world_size) {
  if (world_size > 1 && p.get_int("servers") >= world_size)
    return "servers: " + std::to_string(p.get_int("servers")) + " server ranks leave no worker among " +
           std::to_string(world_size) + " ranks; use at most " + std::to_string(world_size - 1);
  return {};
}

std::vector<int> server_ranks(const AlgorithmParams& p, int world_size) {
  std::vector<int> servers;
  if (world_size > 1)
    for (int r = 0; r < p.get_int("servers"); ++r) servers.push_back(r);
  return servers;
}

ShardServeStats serve_shard(RankContext& ctx, const BlockPartition& part, const ShardPushHandler& handle,
                            const std::string& staleness_metric) {
  Comm& comm = ctx.comm;
  const int shard = comm.rank();
  auto& model = ctx.trainer.params();
  const std::span<float> mine = part.span(model, shard, shard + 1);
  const double shard_bytes = part.bytes_of(shard, shard + 1);
  ShardServeStats stats;
  RequestList receives;  // one replaced or retired per push: the backend takes up that one alone at the next wait
  std::vector<int> from;
  for (int w = part.blocks; w < ctx.run.world_size; ++w) {
    receives.push_back(comm.irecv(w, kPushTag));
    from.push_back(w);
  }
  // Each reply travels in the vector of the push before it: a server allocates no shard per push (a worker's push
  // travels in its previous reply in turn, ShardClient::exchange).
  std::vector<float> spare;
  while (receives.live() > 0) {
    const std::size_t i = comm.wait_any(receives);
    Message m = comm.take(receives[i]);
    const auto& ints = m.payload.ints;
    std::vector<float> reply = std::move(spare);
    handle(mine, ShardPush{m.source, ints.at(2), m.payload.values}, reply);
    ctx.observer.histogram(comm.rank(), staleness_metric, stats.updates - ints.at(1));
    ++stats.updates;
    comm.post(m.source, kReplyTag, Payload{std::move(reply), {stats.updates}}, shard_bytes);
    spare = std::move(m.payload.values);
    if (ints.at(0) == kLastPush) {
      receives.retire(i);  // the others keep their places (and their order of choice)
    } else {
      receives.set(i, comm.irecv(from[i], kPushTag));
    }
  }
  // Every worker is done: everyone gets the final shard, and the servers assemble the whole model too.
  std::vector<RequestPtr> sends;
  for (int r = 0; r < ctx.run.world_size; ++r)
    if (r != shard)
      sends.push_back(comm.isend(r, kFinalTag, Payload{std::vector<float>(mine.begin(), mine.end()), {}}, shard_bytes));
  for (int s = 0; s < part.blocks; ++s) {
    if (s == shard) continue;
    const Message m = comm.recv(s, kFinalTag);
    std::copy(m.payload.values.begin(), m.payload.values.end(), part.span(model, s, s + 1).begin());
  }
  comm.wait_all(sends);
  return stats;
}

ShardClient::ShardClient(Comm& comm, const BlockPartition& part)
    : comm_(comm), part_(part), version_(static_cast<std::size_t>(part.blocks), 0) {}

const std::vector<std::vector<float>>& ShardClient::exchange(const std::vector<float>& values, std::int64_t step,
                                                             bool last) {
  const int shards = part_.blocks;
  replies_.resize(static_cast<std::size_t>(shards));
  std::vector<RequestPtr> replies, pushes;
  for (int s = 0; s < shards; ++s) {
    replies.push_back(comm_.irecv(s, kReplyTag));
    std::vector<float> push = std::move(replies_[static_cast<std::size_t>(s)]);  // the last reply's vector
    if (values.empty()) {
      push.clear();
    } else {
      const std::span<const float> shard = part_.span(values, s, s + 1);
      push.assign(shard.begin(), shard.end());
    }
    Payload p{std::move(push), {last ? kLastPush : kPush, version_[static_cast<std::size_t>(s)], step}};
    pushes.push_back(comm_.isend(s, kPushTag, std::move(p), part_.bytes_of(s, s + 1)));
  }
  comm_.wait_all(pushes);
  comm_.wait_all(replies);
  for (int s = 0; s < shards; ++s) {
    Message m = comm_.take(replies[static_cast<std::size_t>(s)]);
    version_[static_cast<std::size_t>(s)] = m.payload.ints.at(0);
    replies_[static_cast<std::size_t>(s)] = std::move(m.payload.values);
  }
  return replies_;
}

void ShardClient::receive_final_model(std::vector<float>& model) {
  for (int s = 0; s < part_.blocks; ++s) {
    const Message m = comm_.recv(s, kFinalTag);
    std::copy(m.payload.values.begin(), m.payload.values.end(), part_.span(model, s, s + 1).begin());
  }
}

}  // namespace quorum
