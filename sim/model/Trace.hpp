#pragma once
// Measured durations read from CSV files: a list of durations to resample, or a per-rank, per-step trace to
// replay. quorum's own iterations.csv (columns rank, step, ..., compute_s) is accepted as a trace as it is, so a
// run recorded on a cluster can be replayed in simulation at a larger scale.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace quorum {

// Malformed or unreadable trace; the message names the file and line.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DurationSamples {
  std::vector<double> values;
  double mean() const;
  double sd() const;
};

// Durations from a CSV: the named column, else a column called duration, duration_s, compute_s or seconds, else
// the only column. A header line is optional when the file has one column.
DurationSamples read_duration_samples(const std::string& path, const std::string& column = "");

// rank,step,duration rows (duration column named as above). Replay: rank r at step s gets the (s mod n_r)-th
// duration recorded for rank (r mod R) in step order, where R is the number of ranks in the trace.
class RankStepTrace {
 public:
  double at(int rank, std::int64_t step) const;
  int ranks() const { return static_cast<int>(ranks_.size()); }
  std::size_t size() const;
  double mean() const;
  double sd() const;
  void add(int rank, std::int64_t step, double duration) { by_rank_[rank].emplace_back(step, duration); }
  void finalize();  // sorts each rank's entries by step

 private:
  std::map<int, std::vector<std::pair<std::int64_t, double>>> by_rank_;  // while reading
  std::vector<std::vector<std::pair<std::int64_t, double>>> ranks_;       // after finalize, in rank order
};

RankStepTrace read_rank_step_trace(const std::string& path);

// Splits one CSV line on commas, trimming blanks (no quoting: traces are numbers).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace quorum
