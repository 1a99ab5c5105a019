#pragma once
// Load imbalance injected on top of the workload's compute time. A pure function of (seed, rank, step), so every
// backend and every rank computes the same delays without talking to each other.
//
//   none
//   random_delay  {ranks, delay_s}             k random ranks per step are delayed by delay_s (WAGMA: 2 ranks,
//                                              320 ms; eager-SGD: 4 of 64 ranks, 460 ms)
//   slow_worker   {ranks, factor, factor_means, redraw_every}
//                                              ranks (a count drawn at random, or a list of rank ids) compute
//                                              factor times slower (factor_means total_step, the default) or with a
//                                              sleep of factor step times added (added_sleep: 1 + factor times as
//                                              long, Prague sec. 7.4's wording); redraw_every 0 keeps them for the
//                                              whole run, k > 0 draws new ones every k steps (Prague, AD-PSGD)
//   slow_link     {ranks, factor, redraw_every} the network links of some ranks (chosen as slow_worker chooses) carry
//                                              data factor times slower, in both directions; their computation is
//                                              untouched. A backend reads link_factor (the simulator divides the
//                                              bandwidth of the rank's own links, the MPI backend holds the rank's
//                                              sends back by the extra transfer time); redrawn ranks change at the
//                                              slow rank's own step boundaries (AD-PSGD sec. 5.4, Fig. 16)
//   linear_skew   {step_s}                     rank r is delayed by r * step_s (eager-SGD microbenchmark)
//   shifted_skew  {min_s, max_s}               delays spread evenly from min_s to max_s over the ranks, shifted
//                                              by one rank every step
//   distribution  {distribution, probability}  each rank, each step, with the given probability, is delayed by a
//                                              draw from the distribution (Distribution.hpp)
//   markov        {mean_slow_steps, mean_normal_steps, factor, factor_means, delay_s | distribution}
//                                              each rank alternates normal and slow episodes of geometric lengths
//                                              with those means (SlowEpisodes.hpp); in a slow episode its steps take
//                                              factor times as long plus delay_s, or plus a draw from the
//                                              distribution made once per episode and held for all of it. The
//                                              persistent forms of the kinds above: of slow_worker (factor), of
//                                              random_delay (delay_s) and of distribution (distribution; its
//                                              probability becomes mean_slow / (mean_slow + mean_normal))
//   ar1           {phi, sigma}                 the log of each rank's step-time factor is a stationary AR(1)
//                                              process, coefficient phi, sd sigma (Ar1Slowdown.hpp): its steps take
//                                              exp(x) times as long, so the delay is negative while exp(x) < 1 (the
//                                              MPI backend's real compute mode cannot speed up real work: there it
//                                              only slows)
//
// Correlation in space (markov, ar1, distribution): correlate names a level of the platform whose ranks share one
// draw (rank: independent, the default; node; router, chassis, group on the dragonflies), or block_ranks N makes
// ranks k*N .. k*N+N-1 share one. Shared means the same episodes, the same AR(1) path or the same per-step draw, so
// the ranks of a block are slow on exactly the same steps, and different blocks are independent.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platforms/PlatformConfig.hpp"
#include "sim/model/Ar1Slowdown.hpp"
#include "sim/model/Distribution.hpp"
#include "sim/model/SlowEpisodes.hpp"

namespace quorum {

class Fields;

struct StragglerSpec {
  std::string kind = "none";
  int ranks = 0;                  // random_delay: delayed per step; slow_worker, slow_link: how many (if no list)
  std::vector<int> rank_list;     // slow_worker, slow_link: explicit ranks
  double delay_s = 0;             // random_delay; markov: added in slow episodes
  double factor = 1;              // slow_worker; markov, in slow episodes: the step-time multiplier (factor_means
                                  // applied); slow_link: the slowdown of the links' transfers
  std::int64_t redraw_every = 0;  // slow_worker, slow_link
  double step_s = 0;              // linear_skew
  double min_s = 0, max_s = 0;    // shifted_skew
  Distribution distribution;      // distribution; markov with episode_draw
  double probability = 1;         // distribution
  bool episode_draw = false;      // markov: slow episodes add a draw of distribution, once per episode
  double mean_slow_steps = 1, mean_normal_steps = 1;  // markov
  double phi = 0, sigma = 0;      // ar1
  int block_ranks = 1;            // markov, ar1, distribution: ranks k*N .. k*N+N-1 share their draws
};

class StragglerModel {
 public:
  StragglerModel(StragglerSpec spec, int world_size, std::uint64_t seed);
  // Extra seconds for rank at step, given its undisturbed compute time base_s.
  double delay(int rank, std::int64_t step, double base_s) const;
  // How many times slower the rank's network links carry data at its step `step` (1: not slowed; slow_link only).
  double link_factor(int rank, std::int64_t step) const;
  bool slows_links() const { return spec_.kind == "slow_link"; }
  const StragglerSpec& spec() const { return spec_; }

 private:
  bool is_chosen(int rank, std::int64_t step) const;  // slow_worker, slow_link: one of the slow ranks at step
  double markov_delay(int rank, std::int64_t step, double base_s) const;
  StragglerSpec spec_;
  int world_size_;
  std::uint64_t seed_;
  std::optional<SlowEpisodes> episodes_;  // markov
  std::optional<Ar1Slowdown> ar1_;        // ar1
};

struct ImbalanceInfo {
  std::string name, description;
};
const std::vector<ImbalanceInfo>& imbalance_catalog();

// levels: the platform's named groups of ranks (rank_levels), which imbalance.correlate may name.
StragglerSpec parse_imbalance(Fields& fields, int world_size, const std::vector<RankLevel>& levels,
                              const std::string& base_dir);

}  // namespace quorum
