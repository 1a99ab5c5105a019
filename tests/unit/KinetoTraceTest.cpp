// PyTorch profiler (Kineto) traces as measured step times: ProfilerStep#N spans read exactly and ordered by N, plain
// or gzip-compressed, object or bare-array form; several files as one rank each, by the traces' own rank or by
// order; the errors (repeated ranks, no step spans, malformed JSON) name the file, and in a scenario the list entry.
#include "sim/model/KinetoTrace.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "kernels/random/SeedStream.hpp"
#include "sim/model/Distribution.hpp"
#include "sim/model/Fields.hpp"
#include "sim/model/ScenarioError.hpp"
#include "sim/model/Trace.hpp"
#include "tests/support/Cli.hpp"

namespace quorum {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A scratch folder for one test, removed at its end.
class KinetoTrace : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) const {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << content;
    return path;
  }
  std::string write_gzip(const std::string& name, const std::string& content) const {
    const std::string path = dir_ + "/" + name;
    gzFile f = gzopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, content.data(), static_cast<unsigned>(content.size())), static_cast<int>(content.size()));
    gzclose(f);
    return path;
  }

  std::string dir_ = testing::fresh_path("quorum-kineto");
};

json step_span(int n, double dur_us, const std::string& cat = "user_annotation") {
  return {{"ph", "X"}, {"cat", cat}, {"name", "ProfilerStep#" + std::to_string(n)},
          {"pid", 1166}, {"tid", 1166}, {"ts", 1740461679470813.0 + 1e5 * n}, {"dur", dur_us},
          {"args", {{"External id", 4609 + n}, {"Ev Idx", 2040 + n}}}};
}

// What torch.profiler writes around the steps: metadata, operators, kernels, a device mirror of a step, and names
// that only look like steps.
std::vector<json> unrelated_events() {
  return {
      {{"ph", "M"}, {"name", "process_name"}, {"pid", 1166}, {"tid", 0}, {"args", {{"name", "python3"}}}},
      {{"ph", "X"}, {"cat", "cpu_op"}, {"name", "aten::mm"}, {"pid", 1166}, {"tid", 1166}, {"ts", 10}, {"dur", 77},
       {"args", {{"name", "ProfilerStep#9"}, {"Input Dims", {{32, 1000}, {1000, 10}}}}}},
      {{"ph", "X"}, {"cat", "kernel"}, {"name", "void gemm_kernel<float>"}, {"pid", 0}, {"tid", "stream 7"},
       {"ts", 20}, {"dur", 9e9}},
      {{"ph", "X"}, {"cat", "gpu_user_annotation"}, {"name", "ProfilerStep#1"}, {"pid", 0}, {"tid", 7}, {"ts", 0},
       {"dur", 9e9}},
      {{"ph", "i"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#7"}, {"ts", 5}, {"s", "t"}},
      {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#"}, {"ts", 5}, {"dur", 3}},
      {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#2b"}, {"ts", 5}, {"dur", 3}},
      {{"ph", "X"}, {"cat", "python_function"}, {"name", "torch/nn/modules/module.py(1501): _call_impl"},
       {"ts", 6}, {"dur", 4}},
  };
}

// A Kineto trace object: the step spans (durations in microseconds, written in the given order) among the unrelated
// events, with distributedInfo when rank is given.
json kineto_trace(const std::vector<std::pair<int, double>>& steps, std::optional<int> rank) {
  json events = json::array();
  const auto noise = unrelated_events();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    events.push_back(noise[i % noise.size()]);
    events.push_back(step_span(steps[i].first, steps[i].second));
  }
  for (const json& e : noise) events.push_back(e);
  json trace = {{"schemaVersion", 1},
                {"deviceProperties", {{{"id", 0}, {"name", "Tesla V100-SXM2-32GB"}, {"totalGlobalMem", 34089730048}}}},
                {"traceEvents", events},
                {"traceName", "rank.pt.trace.json"},
                {"displayTimeUnit", "ms"},
                {"baseTimeNanoseconds", 1740461600000000000}};
  if (rank) trace["distributedInfo"] = {{"backend", "nccl"}, {"rank", *rank}, {"world_size", 4}};
  return trace;
}

// Expected seconds of microsecond durations, computed as the reader does (exact comparisons).
std::vector<double> seconds(const std::vector<double>& us) {
  std::vector<double> s;
  for (double x : us) s.push_back(x / 1e6);
  return s;
}

template <typename F>
std::string trace_error_of(F&& f, std::size_t* file_index = nullptr) {
  try {
    f();
  } catch (const TraceError& e) {
    if (file_index) *file_index = e.file_index();
    return e.what();
  }
  ADD_FAILURE() << "no TraceError";
  return "";
}

}  // namespace

TEST_F(KinetoTrace, OneRankTraceIsItsStepsInStepOrder) {
  // Written out of order among unrelated events; durations with fractional microseconds, as recent Kineto writes.
  const std::string path =
      write("rank3.pt.trace.json",
            kineto_trace({{3, 512345.25}, {0, 498001.0}, {4, 1203456.5}, {1, 501234.75}, {2, 499999.125}}, 3).dump(2));
  const std::vector<double> expected = seconds({498001.0, 501234.75, 499999.125, 512345.25, 1203456.5});

  ASSERT_TRUE(is_json_trace(path));
  const ProfilerSteps steps = read_profiler_steps(path);
  EXPECT_EQ(steps.steps, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(steps.durations_s, expected);
  ASSERT_TRUE(steps.rank.has_value());
  EXPECT_EQ(*steps.rank, 3);

  // Through the common reader: one sequence (the no-rank layout), whatever the trace's own rank.
  const DurationTrace t = read_duration_trace(path);
  EXPECT_FALSE(t.has_ranks());
  ASSERT_EQ(t.sequences(), 1u);
  EXPECT_EQ(t.size(), 5u);
  EXPECT_EQ(t.all(), expected);
  EXPECT_EQ(read_duration_traces({path}).all(), expected);
}

TEST_F(KinetoTrace, BareArrayAndGzipAreReadAlike) {
  json events = json::array();
  for (const json& e : unrelated_events()) events.push_back(e);
  events.push_back(step_span(11, 2000));
  events.push_back(step_span(10, 1000));
  const std::string plain = write("array.json", "\n  " + events.dump());
  const std::string gz = write_gzip("rank0.pt.trace.json.gz", kineto_trace({{10, 1000}, {11, 2000}}, 0).dump());
  EXPECT_TRUE(is_json_trace(gz));
  for (const std::string& path : {plain, gz}) {
    const ProfilerSteps s = read_profiler_steps(path);
    EXPECT_EQ(s.steps, (std::vector<std::int64_t>{10, 11})) << path;
    EXPECT_EQ(s.durations_s, seconds({1000, 2000})) << path;
    EXPECT_EQ(read_duration_trace(path).all(), seconds({1000, 2000})) << path;
  }
  EXPECT_FALSE(read_profiler_steps(plain).rank.has_value());
}

TEST_F(KinetoTrace, DeviceStepSpansAreUsedOnlyWithoutHostOnes) {
  json trace = {{"traceEvents", {step_span(1, 300, "gpu_user_annotation"), step_span(0, 200, "gpu_user_annotation")}}};
  EXPECT_EQ(read_profiler_steps(write("device.json", trace.dump())).durations_s, seconds({200, 300}));
  trace["traceEvents"].push_back(step_span(0, 250));
  EXPECT_EQ(read_profiler_steps(write("both.json", trace.dump())).durations_s, seconds({250}));
}

TEST_F(KinetoTrace, SeveralFilesAreRanksByTheirOwnRankField) {
  // Given as rank 2, rank 0, rank 1: ordered by distributedInfo.rank.
  const std::vector<std::string> files = {
      write("a.json", kineto_trace({{1, 2100}, {0, 2000}}, 2).dump()),
      write("b.json", kineto_trace({{0, 1000}, {1, 1100}, {2, 1200}}, 0).dump()),
      write_gzip("c.json.gz", kineto_trace({{5, 1500}, {6, 1600}}, 1).dump())};
  const DurationTrace t = read_duration_traces(files);
  EXPECT_TRUE(t.has_ranks());
  ASSERT_EQ(t.sequences(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(t.rank_id(i), static_cast<std::int64_t>(i));
  EXPECT_EQ(t.sequence(0), seconds({1000, 1100, 1200}));
  EXPECT_EQ(t.sequence(1), seconds({1500, 1600}));
  EXPECT_EQ(t.sequence(2), seconds({2000, 2100}));
  EXPECT_EQ(t.size(), 7u);
}

TEST_F(KinetoTrace, SeveralFilesAreRanksInTheGivenOrderWhenOneHasNoRank) {
  const std::vector<std::string> files = {write("x.json", kineto_trace({{0, 3000}}, 5).dump()),
                                          write("y.json", kineto_trace({{0, 1000}, {1, 1001}}, std::nullopt).dump()),
                                          write("z.csv", "duration\n0.25\n0.5\n")};
  const DurationTrace t = read_duration_traces(files);
  ASSERT_EQ(t.sequences(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(t.rank_id(i), static_cast<std::int64_t>(i));
  EXPECT_EQ(t.sequence(0), seconds({3000}));
  EXPECT_EQ(t.sequence(1), seconds({1000, 1001}));
  EXPECT_EQ(t.sequence(2), (std::vector<double>{0.25, 0.5}));
}

TEST_F(KinetoTrace, RepeatedRanksAreAnError) {
  const std::vector<std::string> files = {write("r0.json", kineto_trace({{0, 1}}, 0).dump()),
                                          write("r1.json", kineto_trace({{0, 1}}, 1).dump()),
                                          write("r0-again.json", kineto_trace({{0, 1}}, 0).dump())};
  std::size_t index = 99;
  const std::string msg = trace_error_of([&] { read_duration_traces(files); }, &index);
  EXPECT_EQ(index, 2u);
  EXPECT_NE(msg.find("r0.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("r0-again.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 0"), std::string::npos) << msg;
}

TEST_F(KinetoTrace, TraceWithoutProfilerStepsIsAnError) {
  // Everything else a trace holds, and names that only look like steps, but no host or device step span.
  json trace = kineto_trace({}, 0);
  json& events = trace["traceEvents"];
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const json& e) { return e.value("cat", "") == "gpu_user_annotation"; }),
               events.end());
  const std::string path = write("no-steps.json", trace.dump());
  const std::string msg = trace_error_of([&] { read_duration_trace(path); });
  EXPECT_NE(msg.find("no-steps.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no ProfilerStep#N spans"), std::string::npos) << msg;
  // In a list, the index of the file that failed.
  std::size_t index = 99;
  trace_error_of([&] { read_duration_traces({write("ok.json", kineto_trace({{0, 5}}, 0).dump()), path}); }, &index);
  EXPECT_EQ(index, 1u);
}

TEST_F(KinetoTrace, MalformedTracesAreErrorsNamingTheFile) {
  const std::string truncated = write("truncated.json", R"({"traceEvents": [{"ph": "X", "name": "ProfilerStep#0",)");
  std::string msg = trace_error_of([&] { read_duration_trace(truncated); });
  EXPECT_NE(msg.find("'" + truncated + "' is not valid JSON"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 1"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("json.exception"), std::string::npos) << msg;

  msg = trace_error_of([&] { read_duration_trace(write("garbage.json", "[{\"ph\": \"X\"}, nope]")); });
  EXPECT_NE(msg.find("garbage.json' is not valid JSON"), std::string::npos) << msg;

  msg = trace_error_of([&] { read_duration_trace(write("other.json", R"({"foo": [1, 2]})")); });
  EXPECT_NE(msg.find("other.json' is JSON but not a Chrome trace"), std::string::npos) << msg;

  msg = trace_error_of([&] {
    read_duration_trace(write("no-dur.json", R"({"traceEvents": [{"ph": "X", "name": "ProfilerStep#4", "ts": 1}]})"));
  });
  EXPECT_NE(msg.find("no-dur.json': span ProfilerStep#4 has no duration"), std::string::npos) << msg;

  msg = trace_error_of([&] { read_duration_trace(write("twice.json", kineto_trace({{2, 5}, {2, 6}}, 0).dump())); });
  EXPECT_NE(msg.find("twice.json' has ProfilerStep#2 twice"), std::string::npos) << msg;

  msg = trace_error_of([&] {
    read_duration_trace(write("rank.json", R"({"distributedInfo": {"rank": "zero"}, "traceEvents": []})"));
  });
  EXPECT_NE(msg.find("distributedInfo.rank must be an integer"), std::string::npos) << msg;

  msg = trace_error_of([&] { read_duration_trace(write("column.json", kineto_trace({{0, 5}}, 0).dump()), "dur"); });
  EXPECT_NE(msg.find("'column' 'dur' applies to CSV files only"), std::string::npos) << msg;

  msg = trace_error_of([&] { read_duration_trace(write_gzip("durations.csv.gz", "duration\n0.5\n")); });
  EXPECT_NE(msg.find("gzip-compressed but not JSON"), std::string::npos) << msg;

  msg = trace_error_of([&] { read_duration_trace(dir_ + "/missing.json"); });
  EXPECT_NE(msg.find("cannot read trace file"), std::string::npos) << msg;
}

TEST_F(KinetoTrace, ScenarioFileListIsOneRankPerFile) {
  write("rank1.json", kineto_trace({{0, 1000}, {1, 3000}}, 1).dump());
  write("rank0.json", kineto_trace({{0, 2000}, {1, 4000}}, 0).dump());
  const json spec = {{"kind", "replay"}, {"file", {"rank1.json", "rank0.json"}}};
  Fields f(spec, "workload.compute");
  const Distribution d = parse_distribution(f, dir_, 4);
  ASSERT_EQ(d.trace->sequences(), 2u);
  Rng rng(1);
  // Rank r replays the trace of rank r mod 2, step by step.
  EXPECT_EQ(d.sample(rng, 0, 0), 2000 / 1e6);
  EXPECT_EQ(d.sample(rng, 0, 1), 4000 / 1e6);
  EXPECT_EQ(d.sample(rng, 3, 0), 1000 / 1e6);
  EXPECT_EQ(d.sample(rng, 3, 3), 3000 / 1e6);
  EXPECT_EQ(f.resolved()["file"], json({dir_ + "/rank1.json", dir_ + "/rank0.json"}));
  EXPECT_EQ(f.resolved()["measured"]["durations"], 4);
  EXPECT_EQ(f.resolved()["measured"]["ranks"], 2);

  // Errors name the list entry.
  auto field_of_error = [this](const json& j) {
    Fields g(j, "workload.compute");
    try {
      parse_distribution(g, dir_, 4);
    } catch (const ScenarioError& e) {
      return e.field() + ": " + e.message();
    }
    return std::string("no error");
  };
  write("empty.json", R"({"traceEvents": []})");
  std::string msg = field_of_error({{"kind", "empirical"}, {"file", {"rank0.json", "empty.json"}}});
  EXPECT_EQ(msg.rfind("workload.compute.file[1]: trace file '" + dir_ + "/empty.json' has no ProfilerStep", 0), 0u)
      << msg;
  msg = field_of_error({{"kind", "replay"}, {"file", {"rank0.json", "rank1.json", "rank0.json"}}});
  EXPECT_EQ(msg.rfind("workload.compute.file[2]: ", 0), 0u) << msg;
  msg = field_of_error({{"kind", "replay"}, {"file", {"rank0.json", 7}}});
  EXPECT_EQ(msg.rfind("workload.compute.file[1]: must be a string", 0), 0u) << msg;
  msg = field_of_error({{"kind", "replay"}, {"file", json::array()}});
  EXPECT_EQ(msg.rfind("workload.compute.file: must name at least one file", 0), 0u) << msg;
  msg = field_of_error({{"kind", "replay"}, {"file", "empty.json"}});
  EXPECT_EQ(msg.rfind("workload.compute.file: trace file", 0), 0u) << msg;
}

}  // namespace quorum
