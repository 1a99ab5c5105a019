#include "sim/model/StragglerModel.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/model/Fields.hpp"

namespace quorum {

const std::vector<ImbalanceInfo>& imbalance_catalog() {
  static const std::vector<ImbalanceInfo> catalog = {
      {"none", "no injected imbalance"},
      {"random_delay", "k random ranks per step delayed by delay_s (WAGMA: 2 x 320 ms; eager-SGD: 4 x 460 ms)"},
      {"slow_worker", "some ranks compute factor x slower (factor_means: total_step, or added_sleep: 1 + factor x), "
                      "persistent or redrawn every k steps (Prague, AD-PSGD)"},
      {"slow_link", "some ranks' network links carry data factor x slower (both directions), persistent or redrawn "
                    "every k steps (AD-PSGD Fig. 16)"},
      {"linear_skew", "rank r delayed by r * step_s (eager-SGD microbenchmark)"},
      {"shifted_skew", "delays spread from min_s to max_s over the ranks, shifted by one rank every step"},
      {"distribution", "each rank and step delayed, with some probability, by a draw from a distribution"},
      {"markov", "slow (factor x, + delay_s or a draw) and normal episodes, geometric: mean_slow/normal_steps"},
      {"ar1", "drifting: the log of the step-time factor is a stationary AR(1) process (phi, sigma)"},
  };
  return catalog;
}

namespace {

int block_count(int world_size, int block_ranks) { return (world_size + block_ranks - 1) / block_ranks; }

}  // namespace

StragglerModel::StragglerModel(StragglerSpec spec, int world_size, std::uint64_t seed)
    : spec_(std::move(spec)), world_size_(world_size), seed_(seed) {
  if (spec_.block_ranks < 1) throw std::invalid_argument("StragglerSpec::block_ranks must be >= 1");
  const int blocks = block_count(world_size_, spec_.block_ranks);
  if (spec_.kind == "markov") episodes_.emplace(seed_, spec_.mean_slow_steps, spec_.mean_normal_steps, blocks);
  if (spec_.kind == "ar1") ar1_.emplace(seed_, spec_.phi, spec_.sigma, blocks);
}

double StragglerModel::markov_delay(int rank, std::int64_t step, double base_s) const {
  const int block = rank / spec_.block_ranks;
  const SlowEpisodes::Episode e = episodes_->at(block, step);
  if (!e.slow) return 0.0;
  double extra = base_s * (spec_.factor - 1.0) + spec_.delay_s;
  if (spec_.episode_draw) {
    // Keyed by the episode's first step: the same draw on every step of the episode and every rank of the block.
    Rng rng(seed_, Stream::StragglerEpisodes, static_cast<std::uint64_t>(block),
            static_cast<std::uint64_t>(e.start) + 1);
    extra += spec_.distribution.sample(rng, block * spec_.block_ranks, e.start);
  }
  return extra;
}

bool StragglerModel::is_chosen(int rank, std::int64_t step) const {
  if (!spec_.rank_list.empty())
    return std::find(spec_.rank_list.begin(), spec_.rank_list.end(), rank) != spec_.rank_list.end();
  const std::int64_t epoch = spec_.redraw_every > 0 ? step / spec_.redraw_every : 0;
  Rng rng(seed_, Stream::Straggler, static_cast<std::uint64_t>(epoch), 1);
  const auto slow = sample_distinct(rng, world_size_, spec_.ranks);
  return std::binary_search(slow.begin(), slow.end(), rank);
}

double StragglerModel::link_factor(int rank, std::int64_t step) const {
  return spec_.kind == "slow_link" && is_chosen(rank, step) ? spec_.factor : 1.0;
}

double StragglerModel::delay(int rank, std::int64_t step, double base_s) const {
  const std::string& k = spec_.kind;
  if (k == "none") return 0.0;
  if (k == "random_delay") {
    Rng rng(seed_, Stream::Straggler, static_cast<std::uint64_t>(step), 0);
    const auto delayed = sample_distinct(rng, world_size_, spec_.ranks);
    return std::binary_search(delayed.begin(), delayed.end(), rank) ? spec_.delay_s : 0.0;
  }
  if (k == "slow_worker") return is_chosen(rank, step) ? base_s * (spec_.factor - 1.0) : 0.0;
  if (k == "slow_link") return 0.0;  // slows the rank's links, not its computation (link_factor)
  if (k == "linear_skew") return rank * spec_.step_s;
  if (k == "shifted_skew") {
    if (world_size_ <= 1) return spec_.min_s;
    const auto pos = static_cast<double>((rank + step) % world_size_);
    return spec_.min_s + (spec_.max_s - spec_.min_s) * pos / (world_size_ - 1);
  }
  if (k == "markov") return markov_delay(rank, step, base_s);
  if (k == "ar1") return base_s * std::expm1(ar1_->log_factor(rank / spec_.block_ranks, step));
  // distribution: the ranks of a block share the stream, so they draw alike (a block of one: the rank's own stream)
  const int first = rank / spec_.block_ranks * spec_.block_ranks;
  Rng rng(seed_, Stream::Straggler, static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(step) + 1);
  if (spec_.probability < 1.0 && rng.uniform() >= spec_.probability) return 0.0;
  return spec_.distribution.sample(rng, first, step);
}

namespace {

// "k times slower" has two readings, and factor_means names the one a scenario uses: total_step (the default: the
// slow step takes factor x the normal step time, as "2x / 5x slowdown" reads in Prague's figure captions, the AD-PSGD
// paper's table and everywhere else in quorum) or added_sleep (a sleep of factor x the normal step time is added, so
// the step takes 1 + factor x as long: Prague sec. 7.4's "adding 2 or 5 times the normal iteration time of sleep").
// Returns the step-time multiplier.
double parse_factor(Fields& f, std::optional<double> fallback) {
  if (f.has("added_step_times"))
    f.fail("added_step_times", "was replaced: give factor k with factor_means: added_sleep (the step takes 1 + k "
                               "times as long)");
  if (f.has("factor_means") && !f.has("factor"))
    f.fail("factor_means", "says how factor is read, but factor is not given");
  const std::string means = f.string("factor_means", "total_step", {"total_step", "added_sleep"});
  const double multiplier = means == "added_sleep" ? 1.0 + f.number("factor", fallback, 0.0)
                                                   : f.number("factor", fallback, 1.0);
  f.set_resolved("step_time_multiplier", multiplier);
  return multiplier;
}

// Which ranks share their draws: a level of the platform (correlate) or a block size (block_ranks).
int parse_block_ranks(Fields& f, int world_size, const std::vector<RankLevel>& levels) {
  if (f.has("block_ranks")) {
    if (f.has("correlate"))
      f.fail("block_ranks", "give either correlate (a level of the platform: rank, node, ...) or block_ranks (ranks "
                            "k*N .. k*N+N-1 share their draws), not both");
    return static_cast<int>(f.integer("block_ranks", std::nullopt, 1, std::max(world_size, 1)));
  }
  const std::string level = f.string("correlate", "rank", {"rank", "node", "router", "chassis", "group"});
  if (level == "rank") return 1;
  std::string here = "rank";
  for (const auto& l : levels) {
    if (l.name == level) return l.ranks;
    here += ", " + l.name;
  }
  f.fail("correlate", "this platform has no " + level + " level (it has: " + here +
                          "; router, chassis and group are the dragonflies': piz_daint, generic dragonfly)");
}

// The nested distribution block (kind distribution: a draw per rank and step; markov: a draw per slow episode).
Distribution parse_distribution_block(Fields& f, const std::string& base_dir, int world_size) {
  Fields d = f.object("distribution", true);
  Distribution dist = parse_distribution(d, base_dir, world_size);
  f.set_resolved("distribution", d.resolved());
  return dist;
}

}  // namespace

StragglerSpec parse_imbalance(Fields& f, int world_size, const std::vector<RankLevel>& levels,
                              const std::string& base_dir) {
  StragglerSpec s;
  std::vector<std::string> kinds;
  for (const auto& info : imbalance_catalog()) kinds.push_back(info.name);
  s.kind = f.string("kind", "none", kinds);
  const bool independent_draws = s.kind == "markov" || s.kind == "ar1" || s.kind == "distribution";
  for (const char* key : {"correlate", "block_ranks"})
    if (!independent_draws && f.has(key))
      f.fail(key, "applies to markov, ar1 and distribution (the kinds whose ranks draw independently), not " +
                      s.kind);
  if (independent_draws) {
    s.block_ranks = parse_block_ranks(f, world_size, levels);
    f.set_resolved("correlated_ranks", s.block_ranks);
  }
  if (s.kind == "random_delay") {
    s.ranks = static_cast<int>(f.integer("ranks", std::nullopt, 0, world_size));
    s.delay_s = f.number("delay_s", std::nullopt, 0.0);
  } else if (s.kind == "slow_worker" || s.kind == "slow_link") {
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
    // A link has no "added sleep" reading: factor is the slowdown of its transfers.
    s.factor = s.kind == "slow_worker" ? parse_factor(f, std::nullopt) : f.number("factor", std::nullopt, 1.0);
    s.redraw_every = f.integer("redraw_every", 0, 0);
  } else if (s.kind == "linear_skew") {
    s.step_s = f.number("step_s", std::nullopt, 0.0);
  } else if (s.kind == "shifted_skew") {
    s.min_s = f.number("min_s", std::nullopt, 0.0);
    s.max_s = f.number("max_s", std::nullopt, s.min_s);
  } else if (s.kind == "distribution") {
    s.distribution = parse_distribution_block(f, base_dir, world_size);
    s.probability = f.number("probability", 1.0, 0.0, 1.0);
  } else if (s.kind == "markov") {
    // Up to 1e12 steps: far beyond any run, and the episode bounds stay well inside 64-bit integers.
    s.mean_slow_steps = f.number("mean_slow_steps", std::nullopt, 1.0, 1e12);
    s.mean_normal_steps = f.number("mean_normal_steps", std::nullopt, 1.0, 1e12);
    if (!f.has("factor") && !f.has("delay_s") && !f.has("distribution"))
      f.fail("factor", "markov needs what a slow episode does: factor (read as factor_means says), delay_s or "
                       "distribution (a delay drawn once per episode)");
    s.factor = parse_factor(f, 1.0);
    if (f.has("delay_s") && f.has("distribution"))
      f.fail("distribution", "give either delay_s (the same delay in every slow episode) or distribution (a delay "
                             "drawn once per slow episode), not both");
    s.delay_s = f.number("delay_s", 0.0, 0.0);
    if (f.has("distribution")) {
      s.distribution = parse_distribution_block(f, base_dir, world_size);
      s.episode_draw = true;
    }
  } else if (s.kind == "ar1") {
    s.phi = f.number("phi", std::nullopt, 0.0, 1.0);
    if (s.phi >= 1.0) f.fail("phi", "must be < 1: at 1 the process never returns to its mean (not stationary)");
    // Beyond 3, one step in a thousand would run e^9 (8,000) times slower than undisturbed.
    s.sigma = f.number("sigma", std::nullopt, 0.0, 3.0);
  }
  f.finish();
  return s;
}

}  // namespace quorum
