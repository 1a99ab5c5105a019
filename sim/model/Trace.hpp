#pragma once
// Measured durations read from CSV files, for the empirical (resample) and replay (in order per rank) duration
// distributions and for `quorum trace-stats`. Three layouts are accepted:
//   - one column of durations (a header line is optional);
//   - rank,step,duration rows (any column order; the duration column named as below);
//   - quorum's own iterations.csv (rank, step, ..., compute_s), as it is: a run recorded on a cluster with the MPI
//     backend, or a simulated one, can be replayed in simulation at another scale.
// The duration column is the one named by the caller, else the first of duration, duration_s, compute_s, seconds,
// else the only column.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace quorum {

// Malformed or unreadable trace; the message names the file and line.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DurationTrace {
 public:
  // Whether the file had rank and step columns. Without them it holds one sequence, in file order.
  bool has_ranks() const { return has_ranks_; }
  // Number of sequences: the ranks present in the file (in rank order), or 1.
  std::size_t sequences() const { return sequences_.size(); }
  // The i-th sequence's durations in step order (file order without rank and step columns).
  const std::vector<double>& sequence(std::size_t i) const { return sequences_[i]; }
  // The rank id of the i-th sequence (0 without rank columns).
  std::int64_t rank_id(std::size_t i) const { return rank_ids_[i]; }
  // Every duration (sequence after sequence).
  const std::vector<double>& all() const { return all_; }
  std::size_t size() const { return all_.size(); }
  double mean() const;
  double sd() const;  // sample standard deviation (n - 1)

  // Builds a trace; entries of each rank are sorted by step.
  static DurationTrace from_sequence(std::vector<double> durations);
  struct Entry {
    std::int64_t rank, step;
    double duration;
  };
  static DurationTrace from_entries(std::vector<Entry> entries);

 private:
  bool has_ranks_ = false;
  std::vector<std::vector<double>> sequences_;
  std::vector<std::int64_t> rank_ids_;
  std::vector<double> all_;
};

// column: the duration column's name ("" to detect it).
DurationTrace read_duration_trace(const std::string& path, const std::string& column = "");

// Summary statistics of a set of durations (what `quorum trace-stats` prints).
struct DurationStats {
  std::size_t count = 0;
  double min = 0, median = 0, mean = 0, max = 0, sd = 0;  // sd: sample standard deviation
};
DurationStats describe_durations(std::vector<double> values);

// Splits one CSV line on commas, trimming blanks (no quoting: traces are numbers).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace quorum
