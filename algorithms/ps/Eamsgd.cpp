#include "algorithms/ps/Eamsgd.hpp"

#include <algorithm>

#include "algorithms/StepClock.hpp"
#include "algorithms/ps/ShardServer.hpp"

namespace quorum {

namespace {

// Zhang et al. 2015 (sec. 5 and their experiments) recommend beta = p alpha = 0.9; the AD-PSGD paper (sec. 5.2) set
// EAMSGD's moving rate to 0.9 / p "as recommended".
constexpr double kBeta = 0.9;

int worker_count(const AlgorithmParams& p, int world_size) {
  return std::max(1, world_size - static_cast<int>(p.get_int("servers")));
}

}  // namespace

void elastic_exchange(std::span<float> centre, std::span<const float> worker, float alpha, std::vector<float>& e) {
  e.resize(centre.size());
  for (std::size_t i = 0; i < centre.size(); ++i) {
    e[i] = alpha * (worker[i] - centre[i]);
    centre[i] += e[i];
  }
}

void Eamsgd::run(RankContext& ctx) {
  run_servers_and_workers(
      ctx, servers_, [&](const BlockPartition& part) { serve(ctx, part); },
      [&](const BlockPartition& part) { work(ctx, part); });
}

void Eamsgd::serve(RankContext& ctx, const BlockPartition& part) {
  const float alpha = static_cast<float>(moving_rate_);
  const int shard = ctx.comm.rank();
  const auto move_centre = [&](std::span<float> centre, const ShardPush& push, std::vector<float>& reply) {
    double distance = 0;
    for (std::size_t i = 0; i < centre.size(); ++i) {
      const double d = static_cast<double>(push.values[i]) - centre[i];
      distance += d * d;
    }
    if (!centre.empty()) ctx.observer.sample(shard, "eamsgd.elastic_distance", distance);
    elastic_exchange(centre, push.values, alpha, reply);
  };
  const ShardServeStats stats = serve_shard(ctx, part, move_centre, "eamsgd.staleness");
  ctx.observer.sample(shard, "eamsgd.exchanges_per_server", static_cast<double>(stats.updates));
}

void Eamsgd::work(RankContext& ctx, const BlockPartition& part) {
  auto& model = ctx.trainer.params();
  ShardClient servers(ctx.comm, part);
  // The worker's last exchange is at the last multiple of tau before the end: servers stop serving it there.
  const std::int64_t last_exchange = (ctx.run.iterations - 1) / tau_ * tau_;
  std::vector<float> grad;
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.compute_gradient(step, grad); });
    if (step % tau_ == 0) {
      const auto& elastic = servers.exchange(model, step, step == last_exchange);
      for (int s = 0; s < part.blocks; ++s) {
        const auto& e = elastic[static_cast<std::size_t>(s)];
        const std::span<float> mine = part.span(model, s, s + 1);
        for (std::size_t i = 0; i < e.size(); ++i) mine[i] -= e[i];
      }
    }
    ctx.trainer.apply_gradient(grad);
    clock.end();
  }
  servers.receive_final_model(model);
}

AlgorithmInfo Eamsgd::info() {
  AlgorithmInfo info;
  info.name = "eamsgd";
  info.description =
      "EAMSGD (Zhang et al. 2015), the AD-PSGD paper's asynchronous baseline: workers train their own models and, "
      "every tau steps, move elastically toward a centre variable held by ranks 0..servers-1 (which do not train)";
  info.params = {
      {"servers", ParamType::Int, ParamValue{std::int64_t{1}},
       "server ranks (0..servers-1), each holding one shard of the centre variable; they do not train", {}, 1.0},
      {"tau", ParamType::Int, ParamValue{std::int64_t{1}},
       "communication period: a worker's elastic exchange every tau local steps (AD-PSGD paper: 1)", {}, 1.0},
      {"moving_rate", ParamType::Double, std::nullopt,
       "alpha of the elastic update x -= alpha (x - centre), centre += alpha (x - centre), in (0, 1]; default 0.9 / "
       "workers (Zhang et al.'s beta = p alpha = 0.9, as the AD-PSGD paper set it)",
       {}, 0.0},
  };
  info.derive = [](AlgorithmParams& p, int world_size) {
    if (!p.has("moving_rate")) p.set("moving_rate", kBeta / worker_count(p, world_size));
  };
  info.validate = [](const AlgorithmParams& p, int world_size) -> std::string {
    if (std::string servers = check_servers(p, world_size); !servers.empty()) return servers;
    const double alpha = p.get_double("moving_rate");
    if (!(alpha > 0.0 && alpha <= 1.0))
      return "moving_rate: " + std::to_string(alpha) +
             " is outside (0, 1] (0 never moves, above 1 overshoots the centre)";
    return {};
  };
  info.service_ranks = server_ranks;
  info.make = [](const AlgorithmParams& p, int) {
    return std::make_unique<Eamsgd>(static_cast<int>(p.get_int("servers")), p.get_int("tau"),
                                    p.get_double("moving_rate"));
  };
  return info;
}

}  // namespace quorum
