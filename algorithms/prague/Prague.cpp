#include "algorithms/prague/Prague.hpp"

#include <stdexcept>

#include "algorithms/StepClock.hpp"
#include "algorithms/gossip/AveragingPartners.hpp"
#include "algorithms/prague/GroupGeneratorAgent.hpp"
#include "algorithms/prague/GroupGeneratorProtocol.hpp"
#include "algorithms/prague/PReduce.hpp"
#include "algorithms/prague/StaticSchedule.hpp"

namespace quorum {

namespace pp = prague_protocol;

namespace {

// Runs one P-Reduce and reports it (a timeline span when tracing: category "preduce", name `label`, e.g. "group 17"
// for a generated group, "static step 4" for the static schedule).
void run_preduce(RankContext& ctx, const std::string& label, const std::vector<int>& members) {
  const double t0 = ctx.comm.now();
  p_reduce_average(ctx, members);
  const double t1 = ctx.comm.now();
  if (members.size() > 1) ctx.observer.sample(ctx.comm.rank(), "prague.preduce_s", t1 - t0);
  if (ctx.observer.tracing())
    ctx.observer.span({ctx.comm.rank(), 0, "preduce", label, t0, t1});
}

struct ActivationMessage {
  std::int64_t group = 0;
  bool answers_request = false;
  std::vector<int> members;
};

ActivationMessage parse_activation(const Message& m) {
  const auto& ints = m.payload.ints;
  if (ints.size() < 4 || ints[0] != pp::kActivate) throw std::logic_error("prague: malformed activation");
  ActivationMessage a;
  a.group = ints[1];
  a.answers_request = ints[2] != 0;
  for (std::size_t i = 3; i < ints.size(); ++i) a.members.push_back(static_cast<int>(ints[i]));
  return a;
}

}  // namespace

void Prague::run(RankContext& ctx) {
  if (ctx.run.world_size == 1) {  // nobody to average with: plain SGD
    StepClock clock(ctx);
    for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
      clock.begin(step);
      clock.compute([&] { ctx.trainer.local_step(step); });
      record_averaging_partners(ctx, 0);
      clock.end();
    }
    return;
  }
  if (options_.mode == "static") run_static(ctx);
  else run_with_generator(ctx);
}

void Prague::run_static(RankContext& ctx) {
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.local_step(step); });
    const std::vector<int> members = static_group(ctx.comm.rank(), step, ctx.run.world_size, ctx.run.ranks_per_node);
    if (members.size() > 1) run_preduce(ctx, "static step " + std::to_string(step), members);
    record_averaging_partners(ctx, static_cast<std::int64_t>(members.size()) - 1);
    clock.end();
  }
}

void Prague::run_with_generator(RankContext& ctx) {
  Comm& comm = ctx.comm;
  const int generator_rank = options_.generator_rank;
  std::unique_ptr<Agent> generator;
  if (comm.rank() == generator_rank) {
    GroupGeneratorAgentOptions options;
    options.generator.mode = options_.mode == "random" ? GroupMode::Random : GroupMode::Smart;
    options.generator.workers = ctx.run.world_size;
    options.generator.ranks_per_node = ctx.run.ranks_per_node;
    options.generator.group_size = options_.group_size;
    options.generator.c_thres = options_.c_thres;
    options.generator.inter_intra = options_.inter_intra;
    options.generator.seed = ctx.run.seed;
    options.service_s = options_.generator_service_s;
    generator = comm.spawn("group-generator",
                           [&ctx, options](Comm& agent_comm) { run_group_generator(agent_comm, ctx.observer, options); });
  }
  // Runs an activated group and acknowledges it; returns it.
  auto run_activated = [&](const Message& m) {
    ActivationMessage a = parse_activation(m);
    run_preduce(ctx, "group " + std::to_string(a.group), a.members);
    comm.post(generator_rank, pp::kToGenerator, Payload{{}, {pp::kAcknowledge, a.group}}, pp::control_bytes(2));
    return a;
  };

  const bool request_early = options_.request_at == "step_start";
  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    const Payload request{{}, {pp::kRequest, step}};
    if (request_early) comm.post(generator_rank, pp::kToGenerator, request, pp::control_bytes(2));
    clock.compute([&] { ctx.trainer.local_step(step); });
    if (!request_early) comm.post(generator_rank, pp::kToGenerator, request, pp::control_bytes(2));
    double waited = 0;
    std::int64_t partners = 0, groups = 0;
    for (bool answered = false; !answered;) {
      const double t0 = comm.now();
      Message m = comm.recv(generator_rank, pp::kFromGenerator);
      waited += comm.now() - t0;
      if (m.payload.ints.at(0) != pp::kActivate) throw std::logic_error("prague: released before the last step");
      const ActivationMessage a = run_activated(m);
      partners += static_cast<std::int64_t>(a.members.size()) - 1;
      ++groups;
      answered = a.answers_request;
    }
    ctx.observer.sample(comm.rank(), "prague.generator_wait_s", waited);
    ctx.observer.sample(comm.rank(), "prague.groups_per_step", static_cast<double>(groups));
    record_averaging_partners(ctx, partners);
    clock.end();
  }
  // Serve the groups still formed for this worker until the generator lets it go.
  comm.post(generator_rank, pp::kToGenerator, Payload{{}, {pp::kFinish}}, pp::control_bytes(1));
  std::int64_t after_last_step = 0;
  for (;;) {
    Message m = comm.recv(generator_rank, pp::kFromGenerator);
    if (m.payload.ints.at(0) == pp::kRelease) break;
    run_activated(m);
    ++after_last_step;
  }
  ctx.observer.sample(comm.rank(), "prague.groups_after_last_step", static_cast<double>(after_last_step));
  if (generator) generator->join();
}

AlgorithmInfo Prague::info() {
  AlgorithmInfo info;
  info.name = "prague";
  info.description = "Prague: Partial All-Reduce groups from a Group Generator (random, smart) or a static schedule";
  info.params = {
      {"mode", ParamType::String, ParamValue{std::string("smart")},
       "group generation: random (a new random group per request), smart (Group Buffer, Group Division, slowdown "
       "filter, Inter-Intra), static (conflict-free periodic schedule, no generator)",
       {"random", "smart", "static"}, {}},
      {"group_size", ParamType::Int, ParamValue{std::int64_t{3}},
       "workers per generated group (random, smart); smaller when fewer workers are available", {}, 2.0},
      {"c_thres", ParamType::Int, ParamValue{std::int64_t{5}},
       "smart: a division leaves out workers whose request count trails the initiator's by C_thres or more", {}, 1.0},
      {"inter_intra", ParamType::Bool, ParamValue{true},
       "smart, several ranks per node: divide into inter-node head groups and local groups, then intra-node groups",
       {}, {}},
      {"generator_rank", ParamType::Int, ParamValue{std::int64_t{0}},
       "the rank on whose host the Group Generator agent runs (random, smart)", {}, 0.0},
      {"request_at", ParamType::String, ParamValue{std::string("step_start")},
       "random, smart: when a worker asks for its group: step_start (the paper: the round trip overlaps the "
       "computation) or sync_point (after computing: a slow worker's groups then do not hold others while it computes)",
       {"step_start", "sync_point"}, {}},
      {"generator_service_s", ParamType::Double, ParamValue{0.0},
       "modelled handling time of the Group Generator per message (0: only the network counts)", {}, 0.0},
  };
  info.validate = [](const AlgorithmParams& p, int world_size) -> std::string {
    if (p.get_int("generator_rank") >= world_size)
      return "generator_rank: must be a rank of the run, 0.." + std::to_string(world_size - 1) + ", got " +
             std::to_string(p.get_int("generator_rank"));
    return {};
  };
  info.make = [](const AlgorithmParams& p, int) {
    PragueOptions o;
    o.mode = p.get_string("mode");
    o.group_size = static_cast<int>(p.get_int("group_size"));
    o.c_thres = p.get_int("c_thres");
    o.inter_intra = p.get_bool("inter_intra");
    o.generator_rank = static_cast<int>(p.get_int("generator_rank"));
    o.generator_service_s = p.get_double("generator_service_s");
    o.request_at = p.get_string("request_at");
    return std::make_unique<Prague>(o);
  };
  return info;
}

}  // namespace quorum
