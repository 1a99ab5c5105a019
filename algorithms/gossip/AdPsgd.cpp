#include "algorithms/gossip/AdPsgd.hpp"

#include <mutex>

#include "algorithms/StepClock.hpp"
#include "algorithms/gossip/AveragingPartners.hpp"
#include "algorithms/gossip/BipartiteRing.hpp"
#include "algorithms/gossip/GossipTags.hpp"
#include "kernels/optim/VectorOps.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {

enum RequestKind : std::int64_t { kAverage = 0, kGoodbye = 1 };
constexpr double kControlBytes = 16;

// What the two agents of a rank share; every field is guarded by mutex.
struct SharedState {
  std::unique_ptr<Mutex> mutex;
  std::unique_ptr<ConditionVariable> changed;
  std::int64_t new_updates = 0;   // gradients applied since the last averaging started (active ranks)
  bool computing_done = false;
  std::int64_t partners = 0;      // averagings that touched the model since the last step ended
};

// x += (other - snapshot) / 2, the averaging as a delta (see AdPsgd.hpp).
void apply_average(std::vector<float>& x, const std::vector<float>& snapshot, const std::vector<float>& other) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += 0.5f * (other[i] - snapshot[i]);
}

void active_agent(Comm& comm, RankContext& ctx, SharedState& shared, const std::vector<int>& neighbours) {
  Rng rng(ctx.run.seed, Stream::Gossip, static_cast<std::uint64_t>(comm.rank()), 0);
  auto& model = ctx.trainer.params();
  // The snapshot keeps its vector from one averaging to the next, and the request travels in the vector of the last
  // reply: an averaging allocates no vector of the model's size (replies come from passive_agent's spares in turn).
  std::vector<float> snapshot, carrier;
  for (;;) {
    {
      std::unique_lock<Mutex> lock(*shared.mutex);
      shared.changed->wait(lock, [&] { return shared.new_updates > 0 || shared.computing_done; });
      if (shared.new_updates == 0) break;  // computing is done and every update has been averaged
      shared.new_updates = 0;
      snapshot.assign(model.begin(), model.end());
    }
    carrier.assign(snapshot.begin(), snapshot.end());
    const int peer = neighbours[static_cast<std::size_t>(rng.below(neighbours.size()))];
    const double t0 = comm.now();
    auto reply = comm.irecv(peer, gossip_tags::kAdpsgdReply);
    auto request = comm.isend(peer, gossip_tags::kAdpsgdRequest, Payload{std::move(carrier), {kAverage}},
                              ctx.run.model_bytes);
    const std::vector<RequestPtr> both{request, reply};
    comm.wait_all(both);
    Message answer = comm.take(reply);
    {
      std::unique_lock<Mutex> lock(*shared.mutex);
      apply_average(model, snapshot, answer.payload.values);
      ++shared.partners;
    }
    comm.charge_reduction(ctx.run.model_bytes, answer.payload.values.size());
    ctx.observer.sample(comm.rank(), "adpsgd.averaging_s", comm.now() - t0);
    carrier = std::move(answer.payload.values);
  }
  for (int peer : neighbours) comm.send(peer, gossip_tags::kAdpsgdRequest, Payload{{}, {kGoodbye}}, kControlBytes);
}

void passive_agent(Comm& comm, RankContext& ctx, SharedState& shared, const std::vector<int>& neighbours) {
  auto& model = ctx.trainer.params();
  std::size_t still_active = neighbours.size();
  std::vector<float> spare;  // the last request's vector, read: it carries the next reply
  while (still_active > 0) {
    Message m = comm.recv(kAnySource, gossip_tags::kAdpsgdRequest);
    if (m.payload.ints.at(0) == kGoodbye) {
      --still_active;
      continue;
    }
    std::vector<float> snapshot = std::move(spare);
    {
      std::unique_lock<Mutex> lock(*shared.mutex);
      snapshot.assign(model.begin(), model.end());
      apply_average(model, snapshot, m.payload.values);
      ++shared.partners;
    }
    comm.charge_reduction(ctx.run.model_bytes, m.payload.values.size());
    comm.send(m.source, gossip_tags::kAdpsgdReply, Payload{std::move(snapshot), {}}, ctx.run.model_bytes);
    spare = std::move(m.payload.values);
  }
}

}  // namespace

void AdPsgd::run(RankContext& ctx) {
  StepClock clock(ctx);
  if (ctx.run.world_size == 1) {  // nobody to average with: plain SGD
    for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
      clock.begin(step);
      clock.compute([&] { ctx.trainer.local_step(step); });
      record_averaging_partners(ctx, 0);
      clock.end();
    }
    return;
  }
  const BipartiteRing topology(hops_, ctx.run.world_size);
  const std::vector<int> neighbours = topology.neighbours(ctx.comm.rank());
  SharedState shared{ctx.comm.make_mutex(), ctx.comm.make_condition_variable()};
  const bool active = BipartiteRing::is_active(ctx.comm.rank());
  auto agent = ctx.comm.spawn("adpsgd-comm", [&](Comm& comm) {
    if (active) active_agent(comm, ctx, shared, neighbours);
    else passive_agent(comm, ctx, shared, neighbours);
  });

  auto& model = ctx.trainer.params();
  std::vector<float> snapshot, grad;
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    {
      std::unique_lock<Mutex> lock(*shared.mutex);
      snapshot = model;
    }
    clock.compute([&] { ctx.trainer.compute_gradient_at(snapshot, step, grad); });
    {
      // The step ends under the lock so that an observer reading the model sees a consistent one.
      std::unique_lock<Mutex> lock(*shared.mutex);
      ctx.trainer.apply_gradient(grad);
      ++shared.new_updates;
      record_averaging_partners(ctx, shared.partners);
      shared.partners = 0;
      clock.end();
    }
    shared.changed->notify_all();
  }
  {
    std::unique_lock<Mutex> lock(*shared.mutex);
    shared.computing_done = true;
  }
  shared.changed->notify_all();
  agent->join();
}

AlgorithmInfo AdPsgd::info() {
  AlgorithmInfo info;
  info.name = "adpsgd";
  info.description =
      "AD-PSGD: asynchronous atomic pairwise averaging on a bipartite ring with hops (compute and comm agents)";
  info.params = {{"hops", ParamType::String, ParamValue{std::string("exponential")},
                  "ring distances of the bipartite graph: \"exponential\" (1 and 2^i+1), \"ring\" (1), or a list of "
                  "odd distances \"1,3,7\"",
                  {}, {}}};
  info.validate = [](const AlgorithmParams& p, int world_size) {
    return world_size <= 1 ? std::string() : BipartiteRing::check(p.get_string("hops"), world_size);
  };
  info.make = [](const AlgorithmParams& p, int) { return std::make_unique<AdPsgd>(p.get_string("hops")); };
  return info;
}

}  // namespace quorum
