#include "algorithms/sgd/WagmaSgd.hpp"

#include <algorithm>

#include "algorithms/StepClock.hpp"
#include "algorithms/collectives/PartialAllreduce.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

namespace {
constexpr const char* kMembershipTable = "group_membership";
}

int default_group_size(int world_size) {
  int phases = 0;
  while ((1 << phases) < world_size) ++phases;
  return 1 << ((phases + 1) / 2);
}

void WagmaSgd::run(RankContext& ctx) {
  const int p = ctx.run.world_size, s = settings_.group_size, rank = ctx.comm.rank();
  const Group& world = ctx.run.world;
  const float inv_p = 1.0f / static_cast<float>(p), inv_s = 1.0f / static_cast<float>(s),
              inv_s1 = 1.0f / static_cast<float>(s + 1);
  const bool grouped = settings_.wait_avoiding || settings_.blocking_groups;
  std::optional<ButterflyGrouping> grouping;
  if (grouped) grouping.emplace(p, s, settings_.dynamic_groups);

  // The group steps, in order: version v of the wait-avoiding collective belongs to step group_steps[v].
  std::vector<std::int64_t> group_steps;
  for (std::int64_t t = 0; t < ctx.run.iterations; ++t)
    if (!is_sync_step(t, settings_.tau)) group_steps.push_back(t);

  std::unique_ptr<PartialAllreduce> group_allreduce;
  if (settings_.wait_avoiding) {
    PartialAllreduceConfig config = group_allreduce_config(static_cast<std::int64_t>(group_steps.size()),
                                                           ctx.run.model_bytes, ctx.trainer.params(), *grouping);
    config.step_of_version = [steps = group_steps](std::int64_t v) { return steps[static_cast<std::size_t>(v)]; };
    config.observer = &ctx.observer;
    config.result_ranks = false;  // reads the sum only
    config.schedule = settings_.schedule;
    config.late_result = settings_.late_result;
    // A rank cannot be behind by more than the group steps between two global averages: nobody leaves the
    // synchronous allreduce before every rank has made all its group-step calls.
    config.kept_results = settings_.tau > 0 ? std::max<std::int64_t>(1, settings_.tau - 1) : kDefaultKeptResults;
    if (settings_.membership_csv) config.contributions_table = kMembershipTable;
    group_allreduce = std::make_unique<PartialAllreduce>(ctx.comm, std::move(config));
  }

  StepClock clock(ctx);
  for (std::int64_t step = 0; step < ctx.run.iterations; ++step) {
    clock.begin(step);
    clock.compute([&] { ctx.trainer.local_step(step); });  // W'_t = W_t + U(G_t)
    auto& params = ctx.trainer.params();
    if (is_sync_step(step, settings_.tau)) {
      allreduce_sum(ctx.comm, world, params, ctx.run.model_bytes, ctx.run.allreduce);
      vec::scale(params, inv_p);
    } else if (settings_.wait_avoiding) {
      PartialResult r = group_allreduce->call(params);
      if (r.has_result() && r.own_data_included) {  // W' is in the sum: W = sum / S
        params = std::move(r.sum);
        vec::scale(params, inv_s);
      } else if (r.has_result()) {  // W' came too late for the sum: W = (sum + W') / (S + 1)
        vec::add(r.sum, params);
        params = std::move(r.sum);
        vec::scale(params, inv_s1);
      } else {  // tau = 0 only: more than kept_results steps behind, this step's sum was dropped; keep W'
        ctx.observer.sample(rank, "steps_without_group_sum", 1.0);
      }
    } else if (settings_.blocking_groups) {
      const Group group = grouping->group_of(rank, step);
      allreduce_sum(ctx.comm, group, params, ctx.run.model_bytes, ctx.run.allreduce);
      vec::scale(params, inv_s);
      ctx.observer.sample(rank, "fresh_contribution", 1.0);
      ctx.observer.histogram(rank, "staleness", 0);
      if (rank == group.members.front())
        ctx.observer.sample(rank, "group_active_processes", static_cast<double>(group.size()));
      if (settings_.membership_csv)
        ctx.observer.table_row(kMembershipTable, {{"version", -1.0},
                                                  {"step", static_cast<double>(step)},
                                                  {"group", static_cast<double>(group.members.front())},
                                                  {"rank", static_cast<double>(rank)},
                                                  {"fresh", 1.0},
                                                  {"staleness", 0.0}});
    }
    clock.end();
  }
  if (group_allreduce) group_allreduce->finish();
}

AlgorithmInfo WagmaSgd::info() {
  AlgorithmInfo info;
  info.name = "wagma";
  info.description =
      "WAGMA-SGD: wait-avoiding group model averaging with dynamic butterfly groups, global average every tau steps";
  info.params = {
      {"group_size", ParamType::Int, std::nullopt,
       "S: ranks per group, a power of two <= P (default sqrt(P) rounded up to a power of two)", {}, 1.0},
      {"tau", ParamType::Int, ParamValue{std::int64_t{10}}, "steps between synchronous global averages (0: never)", {},
       0.0},
      {"wait_avoiding", ParamType::Bool, ParamValue{true},
       "alpha: average in groups with the wait-avoiding group allreduce", {}, {}},
      {"blocking_groups", ParamType::Bool, ParamValue{false},
       "beta: average in groups with a synchronous group allreduce (exclusive with wait_avoiding)", {}, {}},
      {"dynamic_groups", ParamType::Bool, ParamValue{true},
       "change groups every step (false: the groups of step 0 throughout)", {}, {}},
      {"schedule", ParamType::String, ParamValue{std::string("recursive_doubling")},
       "schedule of the group allreduce once activated: recursive_doubling (fflib2's) or rabenseifner "
       "(reduce-scatter + allgather)",
       {"recursive_doubling", "rabenseifner"}, {}},
      {"late_result", ParamType::String, ParamValue{std::string("own_version")},
       "what a rank that comes late to its group step averages with: own_version (the sum of its own step's group, "
       "Algorithm 2 line 9; kept for up to tau - 1 steps, 32 with tau = 0) or newest (the newest completed sum, read "
       "again until a newer one completes: fflib2's single receive buffer, as the reference implementation ran)",
       {"own_version", "newest"}, {}},
      {"membership_csv", ParamType::Bool, ParamValue{false},
       "write group_membership.csv: one row per rank and group step (step, group, fresh, staleness)", {}, {}},
  };
  info.derive = [](AlgorithmParams& params, int world_size) {
    if (!params.has("group_size")) params.set("group_size", std::int64_t{default_group_size(world_size)});
  };
  info.validate = [](const AlgorithmParams& params, int world_size) -> std::string {
    const bool alpha = params.get_bool("wait_avoiding"), beta = params.get_bool("blocking_groups");
    if (alpha && beta)
      return "blocking_groups: cannot be true together with wait_avoiding (the paper's alpha and beta are exclusive); "
             "set one of them to false";
    const std::int64_t s = params.get_int("group_size");
    if (!(alpha || beta)) return "";
    if (!is_power_of_two(world_size))
      return "group_size: group averaging needs a power-of-two number of ranks (butterfly groups), the platform has " +
             std::to_string(world_size) + "; use wait_avoiding=false and blocking_groups=false (local SGD) otherwise";
    if (!is_power_of_two(s) || s > world_size)
      return "group_size: must be a power of two between 1 and the number of ranks (" + std::to_string(world_size) +
             "), got " + std::to_string(s);
    return "";
  };
  info.make = [](const AlgorithmParams& p, int) {
    WagmaSettings s;
    s.group_size = static_cast<int>(p.get_int("group_size"));
    s.tau = p.get_int("tau");
    s.wait_avoiding = p.get_bool("wait_avoiding");
    s.blocking_groups = p.get_bool("blocking_groups");
    s.dynamic_groups = p.get_bool("dynamic_groups");
    s.membership_csv = p.get_bool("membership_csv");
    parse_partial_schedule(p.get_string("schedule"), s.schedule);
    parse_late_result(p.get_string("late_result"), s.late_result);
    return std::make_unique<WagmaSgd>(s);
  };
  return info;
}

}  // namespace quorum
