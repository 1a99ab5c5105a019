#include "sim/model/StragglerModel.hpp"

#include <algorithm>

#include "sim/model/Fields.hpp"

namespace quorum {

const std::vector<ImbalanceInfo>& imbalance_catalog() {
  static const std::vector<ImbalanceInfo> catalog = {
      {"none", "no injected imbalance"},
      {"random_delay", "k random ranks per step delayed by delay_s (WAGMA: 2 x 320 ms; eager-SGD: 4 x 460 ms)"},
      {"slow_worker", "some ranks compute factor x slower, persistent or redrawn every k steps (Prague, AD-PSGD)"},
      {"linear_skew", "rank r delayed by r * step_s (eager-SGD microbenchmark)"},
      {"shifted_skew", "delays spread from min_s to max_s over the ranks, shifted by one rank every step"},
      {"distribution", "each rank and step delayed, with some probability, by a draw from a distribution"},
  };
  return catalog;
}

StragglerModel::StragglerModel(StragglerSpec spec, int world_size, std::uint64_t seed)
    : spec_(std::move(spec)), world_size_(world_size), seed_(seed) {}

bool StragglerModel::is_slow_worker(int rank, std::int64_t step) const {
  if (!spec_.rank_list.empty())
    return std::find(spec_.rank_list.begin(), spec_.rank_list.end(), rank) != spec_.rank_list.end();
  const std::int64_t epoch = spec_.redraw_every > 0 ? step / spec_.redraw_every : 0;
  Rng rng(seed_, Stream::Straggler, static_cast<std::uint64_t>(epoch), 1);
  const auto slow = sample_distinct(rng, world_size_, spec_.ranks);
  return std::binary_search(slow.begin(), slow.end(), rank);
}

double StragglerModel::delay(int rank, std::int64_t step, double base_s) const {
  const std::string& k = spec_.kind;
  if (k == "none") return 0.0;
  if (k == "random_delay") {
    Rng rng(seed_, Stream::Straggler, static_cast<std::uint64_t>(step), 0);
    const auto delayed = sample_distinct(rng, world_size_, spec_.ranks);
    return std::binary_search(delayed.begin(), delayed.end(), rank) ? spec_.delay_s : 0.0;
  }
  if (k == "slow_worker") return is_slow_worker(rank, step) ? base_s * (spec_.factor - 1.0) : 0.0;
  if (k == "linear_skew") return rank * spec_.step_s;
  if (k == "shifted_skew") {
    if (world_size_ <= 1) return spec_.min_s;
    const auto pos = static_cast<double>((rank + step) % world_size_);
    return spec_.min_s + (spec_.max_s - spec_.min_s) * pos / (world_size_ - 1);
  }
  // distribution
  Rng rng(seed_, Stream::Straggler, static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(step) + 1);
  if (spec_.probability < 1.0 && rng.uniform() >= spec_.probability) return 0.0;
  return spec_.distribution.sample(rng, rank, step);
}

StragglerSpec parse_imbalance(Fields& f, int world_size, const std::string& base_dir) {
  StragglerSpec s;
  std::vector<std::string> kinds;
  for (const auto& info : imbalance_catalog()) kinds.push_back(info.name);
  s.kind = f.string("kind", "none", kinds);
  if (s.kind == "random_delay") {
    s.ranks = static_cast<int>(f.integer("ranks", std::nullopt, 0, world_size));
    s.delay_s = f.number("delay_s", std::nullopt, 0.0);
  } else if (s.kind == "slow_worker") {
    if (f.raw("ranks").is_array()) {
      for (auto r : f.integer_list("ranks", 0)) {
        if (r >= world_size)
          f.fail("ranks", "rank " + std::to_string(r) + " does not exist (ranks are 0.." +
                              std::to_string(world_size - 1) + ")");
        s.rank_list.push_back(static_cast<int>(r));
      }
    } else {
      s.ranks = static_cast<int>(f.integer("ranks", 1, 0, world_size));
    }
    // Two readings of "k times slower" (Prague sec. 7.4 says "adding 2 or 5 times the normal iteration time of
    // sleep", its captions say 2x and 5x): factor multiplies the step time, added_step_times adds k step times.
    if (f.has("factor") && f.has("added_step_times"))
      f.fail("added_step_times", "give either factor (the step takes factor x as long) or added_step_times (the "
                                 "step takes 1 + added_step_times x as long), not both");
    if (f.has("added_step_times")) s.factor = 1.0 + f.number("added_step_times", std::nullopt, 0.0);
    else s.factor = f.number("factor", std::nullopt, 1.0);
    s.redraw_every = f.integer("redraw_every", 0, 0);
  } else if (s.kind == "linear_skew") {
    s.step_s = f.number("step_s", std::nullopt, 0.0);
  } else if (s.kind == "shifted_skew") {
    s.min_s = f.number("min_s", std::nullopt, 0.0);
    s.max_s = f.number("max_s", std::nullopt, s.min_s);
  } else if (s.kind == "distribution") {
    Fields d = f.object("distribution", true);
    s.distribution = parse_distribution(d, base_dir, world_size);
    f.set_resolved("distribution", d.resolved());
    s.probability = f.number("probability", 1.0, 0.0, 1.0);
  }
  f.finish();
  return s;
}

}  // namespace quorum
