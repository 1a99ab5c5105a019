#pragma once
// Collects what a run produces, whatever the backend: one StepRecord per rank and step, named metric samples,
// and sums of the ranks' parameters at evaluation steps (to evaluate the averaged model over time). Reports
// progress on stderr. Thread-safe: under MPI, a rank's agents are threads.
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/RankContext.hpp"
#include "sim/model/TraceOptions.hpp"

namespace quorum {

struct MetricStats {
  std::int64_t count = 0;
  double sum = 0, min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  void add(double v) {
    ++count;
    sum += v;
    min = std::min(min, v);
    max = std::max(max, v);
  }
  double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
};

// Sum of all ranks' parameters after a given step, the sum of their squared norms (for the consensus distance,
// sum_sq / count - |sum / count|^2), and when the last rank got there. Sums merge across processes, so a backend
// whose ranks live in several processes can reduce them at the end.
struct ModelSnapshot {
  std::vector<double> sum;
  double sum_sq = 0;
  int count = 0;
  double time_s = 0;
};

class RunRecorder final : public StepObserver, public WaitObserver {
 public:
  RunRecorder(std::string label, int ranks, std::int64_t iterations, bool progress);

  void step_done(const StepRecord& record) override;
  void sample(int rank, const std::string& metric, double value) override;
  void histogram(int rank, const std::string& name, std::int64_t bucket) override;
  void table_row(const std::string& table, const std::vector<std::pair<std::string, double>>& row) override;
  bool tracing() const override { return trace_.enabled; }
  // Keeps spans of the selected ranks during their selected steps (a span belongs to the step its rank has not
  // finished yet), up to the event bound; counts the rest.
  void span(const TraceSpan& span) override;
  // A Comm's blocking interval (WaitObserver): a "wait" span.
  void blocked(int rank, int agent, double start_s, double end_s) override;

  // Record timeline spans from now on, as selected (off by default: they cost memory).
  void enable_tracing(const TraceOptions& options) { trace_ = options; }
  const TraceOptions& trace_options() const { return trace_; }
  // Spans left out because of the event bound.
  std::int64_t dropped_spans() const { return dropped_spans_; }

  // Ranks that run no steps (parameter servers, AlgorithmInfo::service_ranks): not waited for, not counted.
  void set_service_ranks(const std::vector<int>& ranks);
  bool is_service_rank(int rank) const { return service_[static_cast<std::size_t>(rank)] != 0; }
  int training_ranks() const { return ranks_ - service_count_; }

  // Where to read a rank's parameters for evaluation snapshots, and how often (0: never).
  void snapshot_models(std::function<std::span<const float>(int rank)> params_of, std::int64_t every);

  const std::vector<StepRecord>& steps() const { return steps_; }
  const std::map<std::string, MetricStats>& metrics() const { return metrics_; }
  const std::map<std::string, std::map<std::int64_t, std::int64_t>>& histograms() const { return histograms_; }
  struct Table {
    std::vector<std::string> columns;
    std::vector<std::vector<double>> rows;
  };
  const std::map<std::string, Table>& tables() const { return tables_; }
  const std::vector<TraceSpan>& spans() const { return spans_; }
  const std::map<std::int64_t, ModelSnapshot>& snapshots() const { return snapshots_; }
  // Merging records made elsewhere (the MPI backend records per rank, then rank 0 merges what the others send).
  void merge_metric(const std::string& metric, const MetricStats& stats);
  void merge_histogram(const std::string& name, std::int64_t bucket, std::int64_t count);
  void merge_snapshot(std::int64_t step, const ModelSnapshot& snapshot);

  // Ranks that completed every step.
  std::vector<int> unfinished_ranks() const;
  std::int64_t last_step_of(int rank) const { return last_step_[static_cast<std::size_t>(rank)]; }
  void finish_progress();

  // Wall seconds since the recorder was made at which the last training rank finished each step, for the steps every
  // training rank has finished, in step order (a step cannot be finished by all before the one before it is).
  const std::vector<double>& step_end_wall_s() const { return step_end_wall_s_; }
  // Wall time per step within the run: from the end of the first step to the end of the one before the last, over the
  // steps between (null before three steps have ended everywhere). It leaves out the start-up, the first step (whose
  // first touches of memory cost more), the last one (whose end is recorded unlike the others': RunRecorder.cpp) and
  // the teardown, which a difference between runs of two lengths measures with their noise.
  std::optional<double> wall_s_per_step() const;
  // Records merged from elsewhere after the run (the MPI backend's) come in at no relation to the wall clock: no step
  // ends are timed then.
  void replaying_records() { step_clock_ = false; }

 private:
  void report_progress(double sim_time);
  void count_finished(const StepRecord& record);

  std::string label_;
  int ranks_;
  std::int64_t iterations_;
  bool progress_;
  std::mutex mutex_;
  std::vector<StepRecord> steps_;
  std::vector<std::int64_t> last_step_;
  std::vector<int> finished_per_step_;  // training ranks that finished each step not yet finished by all
  std::vector<double> step_end_wall_s_;
  bool step_clock_ = true;
  std::vector<char> service_;
  int service_count_ = 0;
  std::map<std::string, MetricStats> metrics_;
  std::map<std::string, std::map<std::int64_t, std::int64_t>> histograms_;
  std::map<std::string, Table> tables_;
  TraceOptions trace_;
  std::vector<TraceSpan> spans_;
  std::int64_t dropped_spans_ = 0;
  std::function<std::span<const float>(int)> params_of_;
  std::int64_t snapshot_every_ = 0;
  std::map<std::int64_t, ModelSnapshot> snapshots_;
  std::chrono::steady_clock::time_point started_, last_report_;
  bool reported_ = false;
};

}  // namespace quorum
