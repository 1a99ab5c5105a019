#pragma once
// Load imbalance injected on top of the workload's compute time. A pure function of (seed, rank, step), so every
// backend and every rank computes the same delays without talking to each other.
//
//   none
//   random_delay  {ranks, delay_s}             k random ranks per step are delayed by delay_s (WAGMA: 2 ranks,
//                                              320 ms; eager-SGD: 4 of 64 ranks, 460 ms)
//   slow_worker   {ranks, factor | added_step_times, redraw_every}
//                                              ranks (a count drawn at random, or a list of rank ids) compute
//                                              factor times slower (or 1 + added_step_times: a sleep of k step
//                                              times added, Prague sec. 7.4's wording); redraw_every 0 keeps them
//                                              for the whole run, k > 0 draws new ones every k steps (Prague, AD-PSGD)
//   linear_skew   {step_s}                     rank r is delayed by r * step_s (eager-SGD microbenchmark)
//   shifted_skew  {min_s, max_s}               delays spread evenly from min_s to max_s over the ranks, shifted
//                                              by one rank every step
//   distribution  {distribution, probability}  each rank, each step, with the given probability, is delayed by a
//                                              draw from the distribution (Distribution.hpp)
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/model/Distribution.hpp"

namespace quorum {

class Fields;

struct StragglerSpec {
  std::string kind = "none";
  int ranks = 0;                  // random_delay: delayed per step; slow_worker: how many (if no list)
  std::vector<int> rank_list;     // slow_worker: explicit ranks
  double delay_s = 0;             // random_delay
  double factor = 1;              // slow_worker
  std::int64_t redraw_every = 0;  // slow_worker
  double step_s = 0;              // linear_skew
  double min_s = 0, max_s = 0;    // shifted_skew
  Distribution distribution;      // distribution
  double probability = 1;         // distribution
};

class StragglerModel {
 public:
  StragglerModel(StragglerSpec spec, int world_size, std::uint64_t seed);
  // Extra seconds for rank at step, given its undisturbed compute time base_s.
  double delay(int rank, std::int64_t step, double base_s) const;
  const StragglerSpec& spec() const { return spec_; }

 private:
  bool is_slow_worker(int rank, std::int64_t step) const;
  StragglerSpec spec_;
  int world_size_;
  std::uint64_t seed_;
};

struct ImbalanceInfo {
  std::string name, description;
};
const std::vector<ImbalanceInfo>& imbalance_catalog();

StragglerSpec parse_imbalance(Fields& fields, int world_size, const std::string& base_dir);

}  // namespace quorum
