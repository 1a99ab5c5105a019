// quorum trace-stats FILE... [--column NAME] [--per-rank] [--bins N]: what a trace of measured durations holds (a CSV
// or a PyTorch profiler trace; several files are one per rank), before it is replayed or resampled
// (workload.compute kinds replay and empirical).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/Commands.hpp"
#include "sim/model/Trace.hpp"

namespace quorum::cli {

namespace {

struct TraceStatsOptions {
  std::vector<std::string> files;
  std::string column;
  bool per_rank = false;
  int bins = 20;
  int width = 50;
};

void print_stats(const DurationStats& s) {
  std::printf("  count   %zu\n", s.count);
  std::printf("  min     %.6g s\n", s.min);
  std::printf("  median  %.6g s\n", s.median);
  std::printf("  mean    %.6g s\n", s.mean);
  std::printf("  max     %.6g s\n", s.max);
  std::printf("  sd      %.6g s\n", s.sd);
}

void print_histogram(const std::vector<double>& values, const DurationStats& s, int bins, int width) {
  const double span = s.max - s.min;
  if (span <= 0) {
    std::printf("histogram: every duration is %.6g s\n", s.min);
    return;
  }
  std::vector<std::size_t> counts(static_cast<std::size_t>(bins), 0);
  for (double v : values) {
    auto b = static_cast<std::size_t>((v - s.min) / span * bins);
    counts[std::min(b, counts.size() - 1)]++;
  }
  const std::size_t peak = *std::max_element(counts.begin(), counts.end());
  const double bin_width = span / bins;
  std::printf("histogram (%d bins of %.4g s; # = %.3g durations):\n", bins, bin_width,
              static_cast<double>(peak) / width);
  for (int b = 0; b < bins; ++b) {
    const std::size_t c = counts[static_cast<std::size_t>(b)];
    const auto bar = static_cast<int>(std::lround(static_cast<double>(c) * width / static_cast<double>(peak)));
    std::printf("  %10.4g - %-10.4g |%s%s| %zu\n", s.min + b * bin_width, s.min + (b + 1) * bin_width,
                std::string(static_cast<std::size_t>(bar), '#').c_str(),
                std::string(static_cast<std::size_t>(width - bar), ' ').c_str(), c);
  }
}

int trace_stats(const TraceStatsOptions& o) {
  DurationTrace trace;
  try {
    trace = read_duration_traces(o.files, o.column);
  } catch (const TraceError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  const DurationStats all = describe_durations(trace.all());
  std::string names;
  for (const std::string& f : o.files) names += (names.empty() ? "" : ", ") + f;
  const std::string layout = !trace.has_ranks()    ? "one sequence"
                             : o.files.size() > 1 ? std::to_string(trace.sequences()) + " ranks (one file per rank)"
                                                  : std::to_string(trace.sequences()) + " ranks (rank, step columns)";
  std::printf("%s: %zu durations, %s\n", names.c_str(), trace.size(), layout.c_str());
  print_stats(all);
  if (o.per_rank && trace.has_ranks()) {
    std::printf("per rank:\n  %6s %8s %10s %10s %10s %10s %10s\n", "rank", "count", "min", "median", "mean", "max",
                "sd");
    for (std::size_t i = 0; i < trace.sequences(); ++i) {
      const DurationStats r = describe_durations(trace.sequence(i));
      std::printf("  %6lld %8zu %10.4g %10.4g %10.4g %10.4g %10.4g\n", static_cast<long long>(trace.rank_id(i)), r.count,
                  r.min, r.median, r.mean, r.max, r.sd);
    }
  }
  print_histogram(trace.all(), all, o.bins, o.width);
  return kExitOk;
}

}  // namespace

void add_trace_stats_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<TraceStatsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "trace-stats", "Count, min, median, mean, max, sd and a histogram of measured durations (a CSV: one column, "
                     "rank,step,duration, or an iterations.csv; or PyTorch profiler traces' ProfilerStep#N spans)");
  cmd->add_option("file", options->files,
                  "CSV file of durations in seconds, or PyTorch profiler trace (.json, .json.gz); several files are "
                  "one per rank")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--column", options->column, "the duration column (default: duration, duration_s, compute_s, "
                                               "seconds, or the only column)");
  cmd->add_flag("--per-rank", options->per_rank, "also one line per rank (rank and step columns, or several files)");
  cmd->add_option("--bins", options->bins, "histogram bins")->check(CLI::Range(1, 1000));
  cmd->add_option("--width", options->width, "histogram bar width in characters")->check(CLI::Range(1, 500));
  cmd->callback([options, &exit_code] { exit_code = trace_stats(*options); });
}

}  // namespace quorum::cli
