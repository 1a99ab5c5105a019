#include "sim/model/Results.hpp"

#include <optional>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sim/model/ChromeTrace.hpp"
#include "sim/model/TimeToTarget.hpp"
#include "sim/model/Version.hpp"

namespace quorum {

namespace {
nlohmann::json nullable(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

struct AggregateRate {
  double steps_per_s = 0;
  double window_s = 0;
};

// Steps per second per training rank while every rank was still running: from the start until the first rank
// finished its last step, counting a step that straddles that moment by the part of it done. Asynchronous
// algorithms let fast ranks finish their steps long before a slow one, so iterations / sim_time would measure the
// slow rank alone; this is the rate the papers report (images/s, time per epoch). For synchronous algorithms every
// rank finishes together and it equals throughput_steps_per_s.
AggregateRate aggregate_rate(const std::vector<StepRecord>& steps, int training_ranks) {
  std::map<int, double> last_end;
  for (const auto& r : steps) {
    const double end = r.start_s + r.compute_s + r.comm_s;
    auto [it, inserted] = last_end.emplace(r.rank, end);
    if (!inserted) it->second = std::max(it->second, end);
  }
  AggregateRate a;
  if (last_end.empty() || training_ranks <= 0) return a;
  double window = std::numeric_limits<double>::infinity();
  for (const auto& [rank, end] : last_end) window = std::min(window, end);
  if (window <= 0) return a;
  double done = 0;
  for (const auto& r : steps) {
    const double end = r.start_s + r.compute_s + r.comm_s;
    if (end <= window) done += 1;
    else if (r.start_s < window && end > r.start_s) done += (window - r.start_s) / (end - r.start_s);
  }
  a.window_s = window;
  a.steps_per_s = done / (training_ranks * window);
  return a;
}
// time_to_target_s, step_to_target (null where not reached or no target is set) and target_resolution_steps: the
// evaluations every math.eval_every steps, then the final models' (after the last step, at the end of the run).
void add_time_to_target(nlohmann::json& j, const Scenario& s, const FinalEvaluation& e, double sim_time_s) {
  const bool wanted = e.enabled && (s.math.target_accuracy || s.math.target_loss);
  TargetReached reached;
  if (wanted) {
    std::vector<EvaluationPoint> evaluations = e.curve;
    evaluations.push_back({s.iterations - 1, sim_time_s, e.averaged.loss, e.averaged.accuracy, std::nullopt});
    reached = first_reaching(evaluations, s.math.target_accuracy, s.math.target_loss);
  }
  j["time_to_target_s"] = nullable(reached.time_s);
  j["step_to_target"] = reached.steps ? nlohmann::json(*reached.steps) : nlohmann::json(nullptr);
  j["target_resolution_steps"] =
      wanted ? nlohmann::json(s.math.eval_every > 0 ? std::min(s.math.eval_every, s.iterations) : s.iterations)
             : nlohmann::json(nullptr);
}
}  // namespace

nlohmann::json make_summary(const Scenario& s, const RunRecorder& recorder, const FinalEvaluation& e,
                            double sim_time_s, double wall_time_s, const std::string& backend) {
  const auto& steps = recorder.steps();
  double wait = 0, compute = 0, comm = 0;
  for (const auto& r : steps) {
    wait += r.wait_s;
    compute += r.compute_s;
    comm += r.comm_s;
  }
  const double n = std::max<double>(1.0, static_cast<double>(steps.size()));
  const double throughput = sim_time_s > 0 ? static_cast<double>(s.iterations) / sim_time_s : 0.0;
  const int training = recorder.training_ranks();
  const AggregateRate aggregate = aggregate_rate(steps, training);

  nlohmann::json j;
  j["quorum_version"] = kVersion;
  j["backend"] = backend;
  j["scenario"] = s.resolved;
  j["name"] = s.name;
  j["algorithm"] = s.algorithm;
  j["platform"] = s.platform_name;
  j["nodes"] = s.nodes;
  j["ranks"] = s.ranks;
  j["training_ranks"] = training;
  j["iterations"] = s.iterations;
  j["workload_profile"] = s.workload_profile;
  j["model_parameters"] = s.parameters;
  j["imbalance"] = s.imbalance.kind;
  j["fidelity"] = to_string(s.fidelity);
  j["sim_time_s"] = sim_time_s;
  j["wall_time_s"] = wall_time_s;
  // The simulator's own speed between the end of the first step and the end of the one before the last (null under
  // MPI, whose ranks record apart, and below three steps).
  const std::optional<double> per_step = recorder.wall_s_per_step();
  j["wall_s_per_step"] = per_step ? nlohmann::json(*per_step) : nlohmann::json(nullptr);
  // The same clock step by step: where its time went (the other ranks' ending, when one rank ends its last step
  // well after them, shows as a long last interval).
  const std::vector<double>& step_ends = recorder.step_end_wall_s();
  j["wall_s_at_step_ends"] = step_ends.empty() ? nlohmann::json(nullptr) : nlohmann::json(step_ends);
  j["throughput_steps_per_s"] = throughput;
  j["samples_per_s"] = throughput * training * static_cast<double>(s.math.batch);
  j["aggregate_steps_per_s"] = aggregate.steps_per_s;
  j["aggregate_samples_per_s"] = aggregate.steps_per_s * training * static_cast<double>(s.math.batch);
  j["aggregate_window_s"] = aggregate.window_s;
  // Throughput if no rank ever waited for another rank or the network.
  j["ideal_steps_per_s"] = compute > 0 ? n / compute : 0.0;
  j["mean_compute_s"] = compute / n;
  j["mean_comm_s"] = comm / n;
  j["mean_wait_s"] = wait / n;
  j["wait_fraction"] = sim_time_s > 0 ? wait / (sim_time_s * training) : 0.0;

  j["proxy_model"] = e.enabled ? nlohmann::json(e.proxy_model) : nlohmann::json(nullptr);
  j["final_test_accuracy"] = e.enabled ? nullable(e.averaged.accuracy) : nlohmann::json(nullptr);
  j["final_loss"] = e.enabled ? nlohmann::json(e.averaged.loss) : nlohmann::json(nullptr);
  j["rank0_test_accuracy"] = e.enabled ? nullable(e.rank0.accuracy) : nlohmann::json(nullptr);
  j["rank0_loss"] = e.enabled ? nlohmann::json(e.rank0.loss) : nlohmann::json(nullptr);
  j["initial_loss"] = e.enabled ? nlohmann::json(e.initial.loss) : nlohmann::json(nullptr);
  j["final_consensus_distance"] = e.enabled ? nlohmann::json(e.final_consensus_distance) : nlohmann::json(nullptr);
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& p : e.curve)
    curve.push_back({{"step", p.step}, {"time_s", p.time_s}, {"test_loss", p.test_loss},
                     {"test_accuracy", nullable(p.test_accuracy)}, {"consensus_distance", nullable(p.consensus_distance)}});
  j["evaluations"] = curve;
  add_time_to_target(j, s, e, sim_time_s);

  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, m] : recorder.metrics())
    metrics[name] = {{"count", m.count}, {"mean", m.mean()}, {"min", m.min}, {"max", m.max}};
  j["metrics"] = metrics;
  nlohmann::json histograms = nlohmann::json::object();
  for (const auto& [name, counts] : recorder.histograms()) {
    nlohmann::json h = nlohmann::json::object();
    for (const auto& [bucket, count] : counts) h[std::to_string(bucket)] = count;
    histograms[name] = h;
  }
  j["histograms"] = histograms;

  // Partial collectives: every rank reports one fresh_contribution (0 or 1) per collective execution, so the mean
  // number of ranks contributing fresh data per execution (NAP) is the fraction of fresh contributions times P.
  const auto fresh = recorder.metrics().find("fresh_contribution");
  j["mean_active_processes"] =
      fresh == recorder.metrics().end() ? nlohmann::json(nullptr) : nlohmann::json(fresh->second.mean() * s.ranks);
  j["staleness_histogram"] = histograms.contains("staleness") ? histograms["staleness"] : nlohmann::json(nullptr);
  if (recorder.tracing())
    j["trace"] = {{"file", "trace.json"},
                  {"events", recorder.spans().size()},
                  {"dropped_events", recorder.dropped_spans()}};
  return j;
}

namespace {
// `value` as printf's %.{digits}g writes it (std::to_chars' general format is defined as that), after `separator`
// unless it is '\0'. snprintf took 2,800 instructions a cell: at 4,096 ranks, writing Prague's table of groups cost
// 4% of the run.
void append_general(std::string& out, char separator, double value, int digits) {
  char cell[64];
  char* first = cell;
  if (separator != '\0') *first++ = separator;
  // 64 characters hold any double at up to 17 digits, so the conversion cannot run out of room.
  out.append(cell, std::to_chars(first, cell + sizeof cell, value, std::chars_format::general, digits).ptr);
}
}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + tmp + "'");
    out << content;
    out.flush();
    if (!out) throw std::runtime_error("error while writing '" + tmp + "'");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw std::runtime_error("cannot move '" + tmp + "' to '" + path + "': " + ec.message());
  }
}

void write_iterations_csv(const std::string& path, std::vector<StepRecord> steps) {
  std::sort(steps.begin(), steps.end(),
            [](const StepRecord& a, const StepRecord& b) { return a.rank != b.rank ? a.rank < b.rank : a.step < b.step; });
  std::string out = "rank,step,start_s,compute_s,comm_s,wait_s\n";
  out.reserve(steps.size() * 64);
  for (const auto& r : steps) {
    out += std::to_string(r.rank) + ',' + std::to_string(r.step);
    for (const double v : {r.start_s, r.compute_s, r.comm_s, r.wait_s}) append_general(out, ',', v, 9);
    out += '\n';
  }
  write_file_atomic(path, out);
}

void write_table_csv(const std::string& path, const RunRecorder::Table& table) {
  std::string out;
  for (std::size_t i = 0; i < table.columns.size(); ++i) out += (i ? "," : "") + table.columns[i];
  out += "\n";
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) append_general(out, i ? ',' : '\0', row[i], 10);
    out += "\n";
  }
  write_file_atomic(path, out);
}

void write_final_params(const std::string& path, const std::vector<std::vector<float>>& params) {
  write_file_atomic(path, nlohmann::json{{"ranks", params}}.dump() + "\n");
}

void write_results(const std::string& dir, const nlohmann::json& summary, const RunRecorder& recorder,
                   bool iterations_csv) {
  std::filesystem::create_directories(dir);
  if (iterations_csv) write_iterations_csv(dir + "/iterations.csv", recorder.steps());
  for (const auto& [name, table] : recorder.tables()) write_table_csv(dir + "/" + name + ".csv", table);
  if (recorder.tracing()) {
    nlohmann::json meta;
    for (const char* key : {"name", "algorithm", "platform", "nodes", "ranks", "workload_profile", "imbalance",
                            "iterations", "backend"})
      if (summary.contains(key)) meta[key] = summary[key];
    meta["time"] = summary.value("backend", "") == "simgrid" ? "simulated seconds" : "seconds since the run began";
    if (summary.contains("scenario") && summary["scenario"].contains("output"))
      meta["selection"] = summary["scenario"]["output"];
    meta["dropped_events"] = recorder.dropped_spans();
    write_file_atomic(dir + "/trace.json", chrome_trace_json(recorder.spans(), meta));
  }
  write_file_atomic(dir + "/summary.json", summary.dump(2) + "\n");
}

}  // namespace quorum
