// Replay of measured runtimes end to end: a trace replayed in simulation reproduces its durations and statistics in
// the simulated per-step compute times (iterations.csv), at the recorded scale and at a larger one; quorum's own
// iterations.csv replays as it is; PyTorch profiler traces (one per rank) replay their ProfilerStep#N spans; empirical
// resampling keeps the distribution; trace-stats reports it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "sim/model/Trace.hpp"
#include "tests/support/Cli.hpp"

namespace quorum {

using testing::fresh_path;
using testing::run_cli;

namespace {

namespace fs = std::filesystem;

// compute_s of iterations.csv by (rank, step).
std::map<std::pair<int, int>, double> compute_times(const std::string& iterations_csv) {
  const DurationTrace t = read_duration_trace(iterations_csv, "compute_s");
  std::map<std::pair<int, int>, double> out;
  for (std::size_t r = 0; r < t.sequences(); ++r)
    for (std::size_t s = 0; s < t.sequence(r).size(); ++s)
      out[{static_cast<int>(t.rank_id(r)), static_cast<int>(s)}] = t.sequence(r)[s];
  return out;
}

std::vector<double> values_of(const std::map<std::pair<int, int>, double>& m) {
  std::vector<double> v;
  for (const auto& [key, x] : m) v.push_back(x);
  return v;
}

// Runs a timing-only Allreduce-SGD scenario without injected imbalance whose compute times come from compute.
std::string simulate(const std::string& dir, const nlohmann::json& compute, int nodes, int iterations) {
  const std::string scenario = dir + "/scenario-" + std::to_string(nodes) + "-" + std::to_string(iterations) + ".json";
  std::ofstream(scenario) << nlohmann::json{
      {"name", "replay"},
      {"platform", {{"name", "piz_daint"}, {"nodes", nodes}}},
      {"workload", {{"profile", "resnet50_p100"}, {"iterations", iterations}, {"compute", compute}}},
      {"algorithm", {{"name", "allreduce"}}}}.dump();
  const std::string out = fresh_path("quorum-replay-run");
  const auto r = run_cli("run " + scenario + " --quiet --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out + "/iterations.csv";
}

void expect_same_statistics(const std::vector<double>& simulated, const std::vector<double>& measured) {
  const DurationStats a = describe_durations(simulated), b = describe_durations(measured);
  const double tol = 1e-7;  // iterations.csv keeps 9 significant digits
  EXPECT_NEAR(a.min, b.min, tol);
  EXPECT_NEAR(a.median, b.median, tol);
  EXPECT_NEAR(a.mean, b.mean, tol);
  EXPECT_NEAR(a.max, b.max, tol);
  EXPECT_NEAR(a.sd, b.sd, tol);
}

}  // namespace

TEST(Replay, ReplayedTraceReproducesItsDurationsAndStatistics) {
  const std::string dir = fresh_path("quorum-replay");
  fs::create_directories(dir);
  // A measured-looking trace: 4 ranks x 50 steps of lognormal step times, rank 3 persistently slower.
  std::mt19937_64 gen(5);
  std::lognormal_distribution<double> step_time(std::log(0.45), 0.3);
  std::map<std::pair<int, int>, double> trace;
  std::ofstream csv(dir + "/measured.csv");
  csv << "rank,step,duration_s\n";
  for (int step = 0; step < 50; ++step)
    for (int rank = 0; rank < 4; ++rank) {
      const double d = step_time(gen) * (rank == 3 ? 1.5 : 1.0);
      trace[{rank, step}] = d;
      char line[64];
      std::snprintf(line, sizeof line, "%d,%d,%.9g\n", rank, step, d);
      csv << line;
    }
  csv.close();
  const nlohmann::json replay = {{"kind", "replay"}, {"file", "measured.csv"}};

  // At the recorded scale: every rank and step gets its own recorded duration.
  const auto same = compute_times(simulate(dir, replay, 4, 50));
  ASSERT_EQ(same.size(), trace.size());
  for (const auto& [key, d] : trace) EXPECT_NEAR(same.at(key), d, 1e-8 * d);
  expect_same_statistics(values_of(same), values_of(trace));

  // At twice the scale: rank r replays the trace's rank r mod 4, so the statistics stay those of the trace.
  const auto larger = compute_times(simulate(dir, replay, 8, 50));
  ASSERT_EQ(larger.size(), 2 * trace.size());
  for (const auto& [key, d] : larger) EXPECT_NEAR(d, trace.at({key.first % 4, key.second}), 1e-8 * d);
  const DurationStats a = describe_durations(values_of(larger)), b = describe_durations(values_of(trace));
  EXPECT_NEAR(a.mean, b.mean, 1e-7);
  EXPECT_NEAR(a.median, b.median, 1e-7);
  // The same 200 values twice: only the sample sd's n - 1 differs.
  EXPECT_NEAR(a.sd, b.sd * std::sqrt(2.0 * 199 / 399), 1e-7);

  // quorum's own iterations.csv is a trace as it is: replaying the first run for twice as many steps wraps around.
  const std::string first_run = simulate(dir, replay, 4, 50);
  const auto again = compute_times(simulate(dir, {{"kind", "replay"}, {"file", first_run}}, 4, 100));
  ASSERT_EQ(again.size(), 400u);
  for (const auto& [key, d] : again) EXPECT_NEAR(d, trace.at({key.first, key.second % 50}), 1e-7 * d);

  // Empirical resampling of the same file: the distribution, not the order.
  const auto resampled = compute_times(simulate(dir, {{"kind", "empirical"}, {"file", "measured.csv"}}, 16, 200));
  std::set<double> recorded;
  for (const auto& [key, d] : same) recorded.insert(d);
  for (const auto& [key, d] : resampled) EXPECT_TRUE(recorded.count(d)) << d;
  const DurationStats e = describe_durations(values_of(resampled));
  EXPECT_NEAR(e.mean, b.mean, 0.03 * b.mean);
  EXPECT_NEAR(e.sd, b.sd, 0.06 * b.sd);

  // trace-stats reads the same numbers.
  const auto stats = run_cli("trace-stats " + dir + "/measured.csv --per-rank");
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  char expected[64];
  std::snprintf(expected, sizeof expected, "mean    %.6g s", b.mean);
  EXPECT_NE(stats.out.find(expected), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("count   200"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("4 ranks"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("histogram"), std::string::npos) << stats.out;
  fs::remove_all(dir);
}

TEST(Replay, OneColumnTraceIsSplitAmongTheRanks) {
  const std::string dir = fresh_path("quorum-replay-column");
  fs::create_directories(dir);
  std::vector<double> measured;
  std::ofstream csv(dir + "/durations.csv");
  csv << "duration\n";
  for (int i = 0; i < 200; ++i) {
    measured.push_back(0.2 + 0.01 * ((i * 37) % 101));
    csv << measured.back() << "\n";
  }
  csv.close();
  // 4 ranks x 50 steps = 200 draws: rank r replays entries 50 r .. 50 r + 49, in order.
  const auto times = compute_times(simulate(dir, {{"kind", "replay"}, {"file", "durations.csv"}}, 4, 50));
  ASSERT_EQ(times.size(), 200u);
  for (const auto& [key, d] : times) EXPECT_NEAR(d, measured[static_cast<std::size_t>(50 * key.first + key.second)], 1e-9);
  expect_same_statistics(values_of(times), measured);
  EXPECT_NE(run_cli("trace-stats " + dir + "/missing.csv").exit_code, 0);
  fs::remove_all(dir);
}

// A PyTorch profiler trace of one rank as torch.profiler writes it: ProfilerStep#N spans (microseconds) for the
// active steps of a schedule, among operator events, in the given file order.
std::string kineto_trace_json(int rank, const std::vector<std::pair<int, double>>& steps_us) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 100 + rank}, {"args", {{"name", "python3"}}}});
  for (const auto& [n, dur] : steps_us) {
    events.push_back({{"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::conv2d"}, {"pid", 100 + rank},
                      {"tid", 100 + rank}, {"ts", 1e6 * n + 10}, {"dur", dur / 3}});
    events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#" + std::to_string(n)},
                      {"pid", 100 + rank}, {"tid", 100 + rank}, {"ts", 1e6 * n}, {"dur", dur},
                      {"args", {{"External id", n}}}});
  }
  return nlohmann::json{{"schemaVersion", 1},
                        {"distributedInfo", {{"backend", "nccl"}, {"rank", rank}, {"world_size", 4}}},
                        {"traceEvents", events}}
      .dump();
}

TEST(Replay, ProfilerTracesReplayTheirStepTimes) {
  const std::string dir = fresh_path("quorum-replay-kineto");
  fs::create_directories(dir);
  // 4 ranks x 30 profiled steps (ProfilerStep#5..#34, written in shuffled order), rank 3 persistently slower; one
  // file gzip-compressed as tensorboard_trace_handler(use_gzip=True) writes it.
  std::mt19937_64 gen(11);
  std::lognormal_distribution<double> step_us(std::log(450000.0), 0.3);
  std::map<std::pair<int, int>, double> trace;  // seconds by (rank, step index)
  std::vector<std::string> files;
  for (int rank : {2, 0, 3, 1}) {  // listed out of rank order: the traces' own rank decides
    std::vector<std::pair<int, double>> steps;
    for (int i = 0; i < 30; ++i) {
      const double us = std::round(step_us(gen) * (rank == 3 ? 1.5 : 1.0) * 1000) / 1000;  // ns resolution
      steps.emplace_back(5 + i, us);
      trace[{rank, i}] = us / 1e6;
    }
    std::shuffle(steps.begin(), steps.end(), gen);
    const std::string json = kineto_trace_json(rank, steps);
    const std::string name = "rank" + std::to_string(rank) + ".pt.trace.json" + (rank == 1 ? ".gz" : "");
    if (rank == 1) {
      gzFile gz = gzopen((dir + "/" + name).c_str(), "wb");
      ASSERT_NE(gz, nullptr);
      gzwrite(gz, json.data(), static_cast<unsigned>(json.size()));
      gzclose(gz);
    } else {
      std::ofstream(dir + "/" + name) << json;
    }
    files.push_back(name);
  }

  // One file per rank at the recorded scale: every rank and step gets its own profiled step time.
  const auto replayed = compute_times(simulate(dir, {{"kind", "replay"}, {"file", files}}, 4, 30));
  ASSERT_EQ(replayed.size(), trace.size());
  for (const auto& [key, d] : trace) EXPECT_NEAR(replayed.at(key), d, 1e-8 * d);
  expect_same_statistics(values_of(replayed), values_of(trace));

  // One file alone is one sequence shared out among the ranks: 4 ranks x 30 steps replay rank 0's 30 steps 4 times.
  const auto shared = compute_times(simulate(dir, {{"kind", "replay"}, {"file", "rank0.pt.trace.json"}}, 4, 30));
  ASSERT_EQ(shared.size(), 120u);
  std::vector<double> rank0;
  for (int i = 0; i < 30; ++i) rank0.push_back(trace.at({0, i}));
  const double rank0_mean = std::accumulate(rank0.begin(), rank0.end(), 0.0) / 30;
  EXPECT_NEAR(describe_durations(values_of(shared)).mean, rank0_mean, 1e-8);
  for (const auto& [key, d] : shared) EXPECT_NEAR(d, rank0[static_cast<std::size_t>(key.first * 30 / 4 + key.second) % 30], 1e-8 * d);

  // A trace without step spans is refused, naming the list entry.
  std::ofstream(dir + "/idle.json") << R"({"traceEvents": [{"ph": "X", "name": "aten::mm", "ts": 0, "dur": 5}]})";
  const std::string bad = dir + "/bad.json";
  std::ofstream(bad) << nlohmann::json{
      {"platform", {{"name", "piz_daint"}, {"nodes", 2}}},
      {"workload", {{"profile", "resnet50_p100"}, {"iterations", 5},
                    {"compute", {{"kind", "replay"}, {"file", {"rank0.pt.trace.json", "idle.json"}}}}}},
      {"algorithm", {{"name", "allreduce"}}}}.dump();
  const auto refused = run_cli("run " + bad + " --quiet --out " + fresh_path("quorum-replay-kineto-bad"));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("workload.compute.file[1]"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("no ProfilerStep#N spans"), std::string::npos) << refused.err;

  // trace-stats reads the same numbers, from the files as from the scenario.
  std::string args;
  for (const std::string& f : files) args += " " + dir + "/" + f;
  const auto stats = run_cli("trace-stats" + args + " --per-rank");
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  char expected[64];
  std::snprintf(expected, sizeof expected, "mean    %.6g s", describe_durations(values_of(trace)).mean);
  EXPECT_NE(stats.out.find(expected), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("count   120"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("4 ranks (one file per rank)"), std::string::npos) << stats.out;
  const auto one = run_cli("trace-stats " + dir + "/rank0.pt.trace.json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  std::snprintf(expected, sizeof expected, "mean    %.6g s", rank0_mean);
  EXPECT_NE(one.out.find(expected), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("count   30"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("one sequence"), std::string::npos) << one.out;
  fs::remove_all(dir);
}

}  // namespace quorum
