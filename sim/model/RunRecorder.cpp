#include "sim/model/RunRecorder.hpp"

#include <cstdio>
#include <stdexcept>

namespace quorum {

RunRecorder::RunRecorder(std::string label, int ranks, std::int64_t iterations, bool progress)
    : label_(std::move(label)),
      ranks_(ranks),
      iterations_(iterations),
      progress_(progress),
      last_step_(static_cast<std::size_t>(ranks), -1),
      service_(static_cast<std::size_t>(ranks), 0),
      started_(std::chrono::steady_clock::now()),
      last_report_(started_) {
  // Keep the whole run in memory only up to a bound; beyond it iterations.csv would be too big to be useful anyway.
  steps_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(std::int64_t{ranks} * iterations, 1 << 22)));
}

void RunRecorder::set_service_ranks(const std::vector<int>& ranks) {
  for (int r : ranks) {
    if (r < 0 || r >= ranks_) throw std::logic_error("service rank out of range");
    if (!service_[static_cast<std::size_t>(r)]) ++service_count_;
    service_[static_cast<std::size_t>(r)] = 1;
  }
}

void RunRecorder::snapshot_models(std::function<std::span<const float>(int)> params_of, std::int64_t every) {
  params_of_ = std::move(params_of);
  snapshot_every_ = every;
}

void RunRecorder::step_done(const StepRecord& record) {
  std::lock_guard lock(mutex_);
  steps_.push_back(record);
  last_step_[static_cast<std::size_t>(record.rank)] = record.step;
  count_finished(record);
  const double end = record.start_s + record.compute_s + record.comm_s;
  if (snapshot_every_ > 0 && params_of_ &&
      ((record.step + 1) % snapshot_every_ == 0 || record.step + 1 == iterations_)) {
    const auto params = params_of_(record.rank);
    ModelSnapshot& snap = snapshots_[record.step];
    if (snap.sum.empty()) snap.sum.assign(params.size(), 0.0);
    double sq = 0;
    for (std::size_t i = 0; i < params.size(); ++i) {
      snap.sum[i] += params[i];
      sq += static_cast<double>(params[i]) * params[i];
    }
    snap.sum_sq += sq;
    ++snap.count;
    snap.time_s = std::max(snap.time_s, end);
  }
  if (progress_ && (steps_.size() & 63) == 0) report_progress(end);
}

void RunRecorder::count_finished(const StepRecord& record) {
  if (!step_clock_ || service_[static_cast<std::size_t>(record.rank)] || record.step < 0) return;
  const auto first_open = static_cast<std::int64_t>(step_end_wall_s_.size());
  if (record.step < first_open) return;  // ended everywhere already: only a repeated record could come now
  const auto k = static_cast<std::size_t>(record.step - first_open);
  if (finished_per_step_.size() <= k) finished_per_step_.resize(k + 1, 0);
  ++finished_per_step_[k];
  // Steps end everywhere in order, so only the oldest open step can have just ended.
  while (!finished_per_step_.empty() && finished_per_step_.front() >= training_ranks()) {
    step_end_wall_s_.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
    finished_per_step_.erase(finished_per_step_.begin());
  }
}

// The last step's end is left out: it is timed unlike the others. A step's end is timed when its last rank reports it,
// and the ranks that the step's last exchange resumed before that one have by then begun the next step (with one math
// thread, run its math inline) or, after the last step, ended their run. With the MLP at 1,024 ranks on one math
// thread the last interval was a tenth of the others', which put the speed-up on two threads at 1.63x for 1.86x.
std::optional<double> RunRecorder::wall_s_per_step() const {
  if (step_end_wall_s_.size() < 3) return std::nullopt;
  const std::size_t last_counted = step_end_wall_s_.size() - 2;
  return (step_end_wall_s_[last_counted] - step_end_wall_s_.front()) / static_cast<double>(last_counted);
}

void RunRecorder::sample(int /*rank*/, const std::string& metric, double value) {
  std::lock_guard lock(mutex_);
  metrics_[metric].add(value);
}

void RunRecorder::histogram(int /*rank*/, const std::string& name, std::int64_t bucket) {
  std::lock_guard lock(mutex_);
  ++histograms_[name][bucket];
}

void RunRecorder::table_row(const std::string& table, const std::vector<std::pair<std::string, double>>& row) {
  std::lock_guard lock(mutex_);
  Table& t = tables_[table];
  if (t.columns.empty())
    for (const auto& [column, value] : row) t.columns.push_back(column);
  std::vector<double> values;
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    if (i >= row.size() || row[i].first != t.columns[i])
      throw std::logic_error("table '" + table + "': every row needs the columns of the first row, in order");
    values.push_back(row[i].second);
  }
  t.rows.push_back(std::move(values));
}

void RunRecorder::merge_metric(const std::string& metric, const MetricStats& stats) {
  std::lock_guard lock(mutex_);
  MetricStats& m = metrics_[metric];
  m.count += stats.count;
  m.sum += stats.sum;
  m.min = std::min(m.min, stats.min);
  m.max = std::max(m.max, stats.max);
}

void RunRecorder::merge_histogram(const std::string& name, std::int64_t bucket, std::int64_t count) {
  std::lock_guard lock(mutex_);
  histograms_[name][bucket] += count;
}

void RunRecorder::merge_snapshot(std::int64_t step, const ModelSnapshot& snapshot) {
  std::lock_guard lock(mutex_);
  ModelSnapshot& snap = snapshots_[step];
  if (snap.sum.empty()) snap.sum.assign(snapshot.sum.size(), 0.0);
  if (snap.sum.size() != snapshot.sum.size()) throw std::logic_error("merge_snapshot: models of different sizes");
  for (std::size_t i = 0; i < snap.sum.size(); ++i) snap.sum[i] += snapshot.sum[i];
  snap.sum_sq += snapshot.sum_sq;
  snap.count += snapshot.count;
  snap.time_s = std::max(snap.time_s, snapshot.time_s);
}

void RunRecorder::span(const TraceSpan& span) {
  if (!trace_.enabled || !trace_.keeps_rank(span.rank)) return;
  std::lock_guard lock(mutex_);
  if (span.rank < 0 || span.rank >= ranks_) return;
  // Service ranks (parameter servers) run no steps: the step selection does not apply to them.
  if (!service_[static_cast<std::size_t>(span.rank)] && !trace_.keeps_step(last_step_[static_cast<std::size_t>(span.rank)] + 1))
    return;
  if (static_cast<std::int64_t>(spans_.size()) >= trace_.max_events) {
    ++dropped_spans_;
    return;
  }
  spans_.push_back(span);
}

void RunRecorder::blocked(int rank, int agent, double start_s, double end_s) {
  if (!trace_.enabled || !trace_.keeps_rank(rank)) return;
  span(TraceSpan{rank, agent, "wait", "wait", start_s, end_s});
}

void RunRecorder::report_progress(double sim_time) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_report_ < std::chrono::seconds(2)) return;
  last_report_ = now;
  reported_ = true;
  const double total = static_cast<double>(training_ranks()) * static_cast<double>(iterations_);
  const double done = static_cast<double>(steps_.size()) / total;
  const double wall = std::chrono::duration<double>(now - started_).count();
  const double eta = done > 0 ? wall * (1 - done) / done : 0;
  std::fprintf(stderr, "\r[quorum] %s: %5.1f%% of rank-steps, simulated %.2f s, wall %.1f s, ETA %.0f s   ",
               label_.c_str(), 100.0 * done, sim_time, wall, eta);
  std::fflush(stderr);
}

void RunRecorder::finish_progress() {
  if (reported_) std::fprintf(stderr, "\n");
}

std::vector<int> RunRecorder::unfinished_ranks() const {
  std::vector<int> out;
  for (int r = 0; r < ranks_; ++r)
    if (!service_[static_cast<std::size_t>(r)] && last_step_[static_cast<std::size_t>(r)] + 1 < iterations_)
      out.push_back(r);
  return out;
}

}  // namespace quorum
