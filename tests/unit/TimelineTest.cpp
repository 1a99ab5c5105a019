// Timelines: Comm's blocking intervals reach a WaitObserver with agent numbers, the recorder keeps the selected
// ranks and steps up to its bound, and the Chrome trace is well formed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "sim/model/ChromeTrace.hpp"
#include "sim/model/RunRecorder.hpp"
#include "sim/model/TraceOptions.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum {

using testing::run_simulated;
using testing::star;

namespace {
struct RecordingObserver final : WaitObserver {
  nlohmann::json intervals = nlohmann::json::array();
  void blocked(int rank, int agent, double start_s, double end_s) override {
    intervals.push_back({{"rank", rank}, {"agent", agent}, {"start", start_s}, {"end", end_s}});
  }
};
}  // namespace

TEST(Timeline, CommReportsEachBlockingIntervalWithItsAgent) {
  const auto result = run_simulated(star(2), [](Comm& comm) {
    RecordingObserver observer;
    comm.observe_waits(&observer);
    const Tag main_tag = tags::make(Channel::Benchmark, 1), agent_tag = tags::make(Channel::Benchmark, 2);
    if (comm.rank() == 0) {
      comm.sleep_for(1.0);
      comm.send(1, main_tag, Payload{}, 0);
      comm.sleep_for(1.0);
      comm.send(1, agent_tag, Payload{}, 0);
    } else {
      // The agent waits for rank 0's second message (at 2 s); the main agent for the first (at 1 s).
      auto agent = comm.spawn("listener", [&](Comm& mine) { mine.recv(0, agent_tag); });
      comm.recv(0, main_tag);
      agent->join();
    }
    return observer.intervals;
  });
  ASSERT_TRUE(result.ok) << result.error;
  const auto& waits = result.per_rank[1];
  std::map<int, nlohmann::json> by_agent;
  for (const auto& w : waits) by_agent[w["agent"].get<int>()] = w;
  ASSERT_EQ(by_agent.size(), 2u) << waits.dump();
  EXPECT_EQ(by_agent[0]["rank"], 1);
  EXPECT_NEAR(by_agent[0]["start"].get<double>(), 0.0, 1e-6);
  EXPECT_NEAR(by_agent[0]["end"].get<double>(), 1.0, 1e-3);
  EXPECT_NEAR(by_agent[1]["end"].get<double>(), 2.0, 1e-3);
  EXPECT_EQ(by_agent[1]["rank"], 1);
}

TEST(Timeline, RecorderKeepsSelectedRanksAndStepsUpToItsBound) {
  RunRecorder recorder("t", 4, 10, false);
  EXPECT_FALSE(recorder.tracing());
  recorder.span({0, 0, "compute", "x", 0, 1});  // tracing off: ignored
  TraceOptions options;
  options.enabled = true;
  options.ranks = parse_ranges("1-2");
  options.first_step = 3;
  options.last_step = 4;
  recorder.enable_tracing(options);
  for (int step = 0; step < 10; ++step)
    for (int rank = 0; rank < 4; ++rank) {
      // A span during the step, a wait, then the step's record (as StepClock and Comm emit them).
      recorder.span({rank, 0, "compute", "step " + std::to_string(step), step * 1.0, step + 0.5});
      recorder.blocked(rank, 1, step + 0.5, step + 0.9);
      recorder.step_done(StepRecord{rank, step, step * 1.0, 0.5, 0.5, 0.4});
    }
  ASSERT_EQ(recorder.spans().size(), 2u * 2 * 2);  // 2 ranks x 2 steps x (compute + wait)
  for (const auto& s : recorder.spans()) {
    EXPECT_TRUE(s.rank == 1 || s.rank == 2);
    EXPECT_TRUE(s.start_s >= 3.0 && s.end_s <= 5.0) << s.name << " " << s.start_s;
    if (s.category == "wait") {
      EXPECT_EQ(s.agent, 1);
    }
  }
  RunRecorder bounded("t", 2, 100, false);
  options = TraceOptions{};
  options.enabled = true;
  options.max_events = 5;
  bounded.enable_tracing(options);
  for (int i = 0; i < 8; ++i) bounded.span({0, 0, "compute", "s", i * 1.0, i + 1.0});
  EXPECT_EQ(bounded.spans().size(), 5u);
  EXPECT_EQ(bounded.dropped_spans(), 3);
}

TEST(Timeline, RangesParseAndBadOnesAreRefused) {
  EXPECT_EQ(parse_ranges("0-3,8"), (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 3}, {8, 8}}));
  for (const char* bad : {"", "3-1", "a", "1-", "-2", "1,,2", "1-2-3"}) EXPECT_THROW(parse_ranges(bad), std::invalid_argument) << bad;
}

TEST(Timeline, ChromeTraceHasOneProcessPerRankAndRowsPerKind) {
  const std::vector<TraceSpan> spans = {
      {0, 0, "compute", "step 0", 0.0, 0.5},     {0, 0, "comm", "step 0", 0.5, 0.8},
      {0, 0, "wait", "wait", 0.55, 0.75},        {0, 1, "wait", "wait", 0.1, 0.2},
      {1, 0, "activation", "activate v3", 0.3, 0.3}, {1, 0, "group_generator", "group {0,1}", 0.2, 0.4},
  };
  const auto trace = nlohmann::json::parse(chrome_trace_json(spans, {{"algorithm", "x"}}));
  EXPECT_EQ(trace["otherData"]["algorithm"], "x");
  std::map<std::string, nlohmann::json> by_name;
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<int, std::string> process_names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name") thread_names[std::make_pair(e["pid"], e["tid"])] = e["args"]["name"];
      if (e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
      continue;
    }
    by_name[e["cat"].get<std::string>() + "/" + std::to_string(e["pid"].get<int>()) + "/" +
            std::to_string(e["tid"].get<int>())] = e;
  }
  EXPECT_EQ(process_names[0], "rank 0");
  EXPECT_EQ(process_names[1], "rank 1");
  // Microseconds; compute and comm share the main agent's first row, waits have their own, agents their own.
  const auto& compute = by_name.at("compute/0/0");
  EXPECT_EQ(compute["ph"], "X");
  EXPECT_DOUBLE_EQ(compute["dur"].get<double>(), 500000.0);
  EXPECT_TRUE(by_name.count("comm/0/0"));
  EXPECT_TRUE(by_name.count("wait/0/1"));
  EXPECT_TRUE(by_name.count("wait/0/101"));
  EXPECT_EQ(thread_names[std::make_pair(0, 0)], "main: compute / comm");
  EXPECT_EQ(thread_names[std::make_pair(0, 1)], "main: wait");
  EXPECT_EQ(thread_names[std::make_pair(0, 101)], "agent 1: wait");
  // Other categories get rows of their own; a zero-length span is an instant event.
  bool activation = false, generator = false;
  for (const auto& [key, e] : by_name) {
    if (e["cat"] == "activation") {
      activation = true;
      EXPECT_EQ(e["ph"], "i");
      EXPECT_EQ(thread_names[std::make_pair(1, e["tid"].get<int>())], "main: activation");
    }
    if (e["cat"] == "group_generator") {
      generator = true;
      EXPECT_EQ(thread_names[std::make_pair(1, e["tid"].get<int>())], "main: group_generator");
    }
  }
  EXPECT_TRUE(activation);
  EXPECT_TRUE(generator);
}

}  // namespace quorum
