#include "algorithms/gossip/DPsgd.hpp"

#include <algorithm>

#include "algorithms/StepClock.hpp"
#include "algorithms/gossip/AveragingPartners.hpp"
#include "algorithms/gossip/GossipTags.hpp"
#include "algorithms/gossip/ModelExchange.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

std::vector<int> DPsgd::neighbours(int rank, int world_size) {
  std::vector<int> n;
  if (world_size <= 1) return n;
  n.push_back((rank + world_size - 1) % world_size);
  n.push_back((rank + 1) % world_size);
  std::sort(n.begin(), n.end());
  n.erase(std::unique(n.begin(), n.end()), n.end());
  return n;
}

void DPsgd::run(RankContext& ctx) {
  const std::vector<int> peers = neighbours(ctx.comm.rank(), ctx.run.world_size);
  const float weight = 1.0f / static_cast<float>(peers.size() + 1);
  ModelExchange exchange(ctx.comm, gossip_tags::kDpsgdModel);
  std::vector<float> grad;
  auto& params = ctx.trainer.params();
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    if (overlap_) exchange.start(peers, peers, params, {step}, ctx.run.model_bytes);
    clock.compute([&] { ctx.trainer.compute_gradient(step, grad); });
    if (!overlap_) exchange.start(peers, peers, params, {step}, ctx.run.model_bytes);
    std::vector<Message> got = exchange.finish();
    if (!peers.empty()) {
      // Fixed order (own model, then neighbours by rank) so every run rounds the same way.
      for (const Message& m : got) {
        vec::add(params, m.payload.values);
        ctx.comm.charge_reduction(ctx.run.model_bytes, m.payload.values.size());
      }
      vec::scale(params, weight);
    }
    exchange.recycle(got);
    ctx.trainer.apply_gradient(grad);
    record_averaging_partners(ctx, static_cast<std::int64_t>(peers.size()));
    clock.end();
  }
}

AlgorithmInfo DPsgd::info() {
  AlgorithmInfo info;
  info.name = "dpsgd";
  info.description = "D-PSGD: synchronous ring, every step each rank averages its model with its two neighbours (1/3)";
  info.params = {{"overlap", ParamType::Bool, ParamValue{false},
                  "send the model as the step starts so the exchange overlaps the gradient computation (Lian et al.); "
                  "false: exchange after computing, as the WAGMA and eager-SGD papers ran D-PSGD",
                  {}, {}}};
  info.make = [](const AlgorithmParams& p, int) { return std::make_unique<DPsgd>(p.get_bool("overlap")); };
  return info;
}

}  // namespace quorum
