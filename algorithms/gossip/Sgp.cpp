#include "algorithms/gossip/Sgp.hpp"

#include <array>
#include <stdexcept>

#include "algorithms/StepClock.hpp"
#include "algorithms/gossip/AveragingPartners.hpp"
#include "algorithms/gossip/ExponentialGraph.hpp"
#include "algorithms/gossip/GossipTags.hpp"
#include "algorithms/gossip/ModelExchange.hpp"
#include "algorithms/gossip/PushSum.hpp"

namespace quorum {

namespace {

// Absorbs a finished round; returns how many pushes it held.
std::int64_t absorb_round(Comm& comm, double model_bytes, ModelExchange& round, PushSum& state,
                          std::int64_t expected_step) {
  std::int64_t absorbed = 0;
  std::vector<Message> got = round.finish();
  for (const Message& m : got) {
    if (state.absorb(m.payload) != expected_step)
      throw std::logic_error("sgp: a push of another step arrived (rounds out of order)");
    comm.charge_reduction(model_bytes, m.payload.values.size());
    ++absorbed;
  }
  round.recycle(got);
  return absorbed;
}

}  // namespace

void Sgp::run(RankContext& ctx) {
  const int rank = ctx.comm.rank();
  const DirectedExponentialGraph graph(ctx.run.world_size, neighbors_);
  PushSum state(ctx.trainer.params());
  // Two rounds alternate: with overlap, step k's round is still in flight while step k+1 starts its own.
  std::array<ModelExchange, 2> rounds{ModelExchange(ctx.comm, gossip_tags::kSgpPush),
                                      ModelExchange(ctx.comm, gossip_tags::kSgpPush)};
  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.compute_gradient(step, grad); });  // at z, the replica the trainer holds
    // The optimiser step goes to the numerator: swap it into the trainer for the update (no copy).
    std::swap(ctx.trainer.params(), state.numerator());
    ctx.trainer.apply_gradient(grad);
    std::swap(ctx.trainer.params(), state.numerator());

    const std::vector<int> out = graph.out_peers(rank, step), in = graph.in_peers(rank, step);
    ModelExchange& round = rounds[static_cast<std::size_t>(step % 2)];
    round.start(out, in, state.push(static_cast<int>(out.size()), step), ctx.run.model_bytes);
    std::int64_t absorbed = 0;
    if (!overlap_)
      absorbed = absorb_round(ctx.comm, ctx.run.model_bytes, round, state, step);
    else if (step > 0)
      absorbed = absorb_round(ctx.comm, ctx.run.model_bytes, rounds[static_cast<std::size_t>((step - 1) % 2)], state,
                              step - 1);
    state.debiased(ctx.trainer.params());
    record_averaging_partners(ctx, absorbed);
    ctx.observer.sample(rank, "sgp.push_sum_weight", state.weight());
    clock.end();
  }
  if (overlap_ && ctx.run.iterations > 0) {
    // Drain the last round so the pushed mass is not lost; the model the run ends with includes it.
    const std::int64_t last = ctx.run.iterations - 1;
    absorb_round(ctx.comm, ctx.run.model_bytes, rounds[static_cast<std::size_t>(last % 2)], state, last);
    state.debiased(ctx.trainer.params());
  }
}

AlgorithmInfo Sgp::info() {
  AlgorithmInfo info;
  info.name = "sgp";
  info.description =
      "SGP: stochastic gradient push on a time-varying directed exponential graph, push-sum weights, optional overlap";
  info.params = {
      {"neighbors", ParamType::Int, ParamValue{std::int64_t{1}},
       "out-peers per step (the papers use 1, 2 or 4); fewer when P has fewer exponential distances", {}, 1.0},
      {"overlap", ParamType::Bool, ParamValue{false},
       "delay communication by one step so it overlaps the next step's computation (overlap SGP)", {}, {}},
  };
  info.make = [](const AlgorithmParams& p, int) {
    return std::make_unique<Sgp>(static_cast<int>(p.get_int("neighbors")), p.get_bool("overlap"));
  };
  return info;
}

}  // namespace quorum
