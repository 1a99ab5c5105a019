#pragma once
// Distributions of durations (per-step compute times, straggler delays), sampled from seeded streams.
//
// Kinds and their JSON fields:
//   constant            {seconds}
//   uniform             {min_s, max_s}
//   normal              {mean_s, sd_s}                       (redrawn while negative)
//   exponential         {mean_s}
//   lognormal           {mu, sigma} or {median_s, sigma}; optional shift_s, min_s, max_s (truncation)
//   truncated_lognormal {mean_s, sd_s, min_s, max_s}         fitted: a (shifted) lognormal truncated to [min, max]
//                                                            whose mean and sd match; the fit is recorded
//   empirical           {file, column?, per_rank?}           resampled from measured durations (Trace.hpp: one
//                                                            column, rank,step,duration, quorum's iterations.csv, or
//                                                            a PyTorch profiler trace's ProfilerStep#N spans);
//                                                            per_rank: rank r draws only from the trace's rank
//                                                            (r mod ranks in the trace)
//   replay              {file, column?}                      replayed in order per rank: from a trace with ranks,
//                                                            rank r at step s gets the (s mod n)-th duration of the
//                                                            trace's rank (r mod ranks in the trace); from one
//                                                            sequence of n durations, rank r of P starts at entry
//                                                            floor(r n / P) and goes on in order (wrapping around).
//                                                            "trace" is accepted as replay's former name.
// file is one file, or a list of files, one per rank (profiler traces, one per rank, are ordered by their own rank
// when every one records it, else as listed); errors name the entry (file[1]).
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/random/SeedStream.hpp"
#include "sim/model/Trace.hpp"

namespace quorum {

class Fields;

struct Distribution {
  enum class Kind { Constant, Uniform, Normal, Exponential, Lognormal, Empirical, Replay };
  Kind kind = Kind::Constant;
  double value = 0;          // constant
  double lo = 0, hi = 0;     // uniform bounds; lognormal truncation bounds (of the shifted variable)
  double mean_s = 0, sd_s = 0;
  double mu = 0, sigma = 0, shift_s = 0;
  std::shared_ptr<const DurationTrace> trace;  // empirical, replay
  bool per_rank = false;                       // empirical: resample each rank's own durations
  int world_size = 1;                          // replay of one sequence: spreads the ranks' starting points

  // One draw. rank and step select the entry of a replayed trace (and the rank's durations for empirical per_rank);
  // other kinds ignore them.
  double sample(Rng& rng, int rank, std::int64_t step) const;
  // Expected value (analytic, or the mean of all the data for empirical and replay).
  double mean() const;
  double sd() const;
};

// Parses a distribution object (fields as above). base_dir resolves relative file names; world_size is the number of
// ranks that will draw from it. The resolved fields (including fitted parameters and a summary of a trace file) are
// recorded in fields.resolved().
Distribution parse_distribution(Fields& fields, const std::string& base_dir, int world_size = 1);

// Lognormal fit to published summary statistics: a lognormal, shifted by 0 or by min_s, truncated to
// [min_s, max_s], whose truncated mean and sd match mean_s and sd_s (the shift that fits better is kept).
struct LognormalFit {
  double mu = 0, sigma = 0, shift_s = 0, min_s = 0, max_s = 0;
  double fitted_mean = 0, fitted_sd = 0;
};
LognormalFit fit_truncated_lognormal(double mean_s, double sd_s, double min_s, double max_s);

// Mean and sd of exp(N(mu, sigma)) + shift truncated to [lo, hi] (bounds on the shifted variable).
void truncated_lognormal_moments(double mu, double sigma, double shift, double lo, double hi, double& mean,
                                 double& sd);

// Standard normal CDF and its inverse.
double normal_cdf(double x);
double normal_quantile(double p);

}  // namespace quorum
