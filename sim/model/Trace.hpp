#pragma once
// Measured durations, for the empirical (resample) and replay (in order per rank) duration distributions and for
// `quorum trace-stats`. The format is told by content, so every caller reads all of them:
//   - CSV (Trace.cpp), in three layouts:
//       - one column of durations (a header line is optional);
//       - rank,step,duration rows (any column order; the duration column named as below);
//       - quorum's own iterations.csv (rank, step, ..., compute_s), as it is: a run recorded on a cluster with the
//         MPI backend, or a simulated one, can be replayed in simulation at another scale.
//     The duration column is the one named by the caller, else the first of duration, duration_s, compute_s,
//     seconds, else the only column.
//   - a PyTorch profiler trace (KinetoTrace.hpp): a Chrome/Kineto trace JSON, plain or .json.gz, whose first
//     non-blank character is '{' or '['; each ProfilerStep#N span's duration is step N's time. One such file is one
//     sequence (one rank's steps, by N).
// Several files (read_duration_traces) are one per rank: each must hold one sequence; ranks are the files' own
// distributedInfo.rank when every file has one, else the files' order.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace quorum {

// Malformed or unreadable trace; the message names the file (and the line of a CSV).
class TraceError : public std::runtime_error {
 public:
  explicit TraceError(const std::string& message, std::size_t file_index = 0)
      : std::runtime_error(message), file_index_(file_index) {}
  // Which of several files (read_duration_traces) the error is about, so a scenario can name file[i].
  std::size_t file_index() const { return file_index_; }

 private:
  std::size_t file_index_;
};

class DurationTrace {
 public:
  // Whether the trace has ranks (rank and step columns, or one file per rank). Without them it holds one sequence,
  // in file order (step order for a profiler trace).
  bool has_ranks() const { return has_ranks_; }
  // Number of sequences: the ranks present (in rank order), or 1.
  std::size_t sequences() const { return sequences_.size(); }
  // The i-th sequence's durations in step order (file order without rank and step columns).
  const std::vector<double>& sequence(std::size_t i) const { return sequences_[i]; }
  // The rank id of the i-th sequence (0 without ranks).
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

// One file, CSV or profiler trace. column: a CSV's duration column ("" to detect it; an error for a profiler trace).
DurationTrace read_duration_trace(const std::string& path, const std::string& column = "");
// One file as above, or several, one per rank (see the top of this file); TraceError::file_index() names the file.
DurationTrace read_duration_traces(const std::vector<std::string>& paths, const std::string& column = "");

// Summary statistics of a set of durations (what `quorum trace-stats` prints).
struct DurationStats {
  std::size_t count = 0;
  double min = 0, median = 0, mean = 0, max = 0, sd = 0;  // sd: sample standard deviation
};
DurationStats describe_durations(std::vector<double> values);

// Splits one CSV line on commas, trimming blanks (no quoting: traces are numbers).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace quorum
