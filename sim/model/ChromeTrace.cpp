#include "sim/model/ChromeTrace.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace quorum {

namespace {

// Rows of one agent: the steps' compute and comm spans never overlap, so they share a row; waits nest inside comm
// spans and get their own row; every other category (possibly overlapping the others) gets its own row too.
constexpr int kRowsPerAgent = 100;

int row_of(const std::string& category, const std::map<std::string, int>& extra_rows) {
  if (category == "compute" || category == "comm") return 0;
  if (category == "wait") return 1;
  return extra_rows.at(category);
}

std::string row_name(int agent, int row, const std::map<std::string, int>& extra_rows) {
  const std::string who = agent == 0 ? "main" : "agent " + std::to_string(agent);
  if (row == 0) return who + ": compute / comm";
  if (row == 1) return who + ": wait";
  for (const auto& [category, r] : extra_rows)
    if (r == row) return who + ": " + category;
  return who;
}

const char* color_of(const std::string& category) {
  // Chrome's reserved colour names; Perfetto picks its own.
  if (category == "compute") return "thread_state_running";
  if (category == "comm") return "thread_state_iowait";
  if (category == "wait") return "terrible";
  return nullptr;
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

std::string chrome_trace_json(const std::vector<TraceSpan>& spans, const nlohmann::json& metadata) {
  std::set<std::string> categories;
  for (const auto& s : spans) categories.insert(s.category);
  std::map<std::string, int> extra_rows;
  int next_row = 2;
  for (const auto& c : categories)
    if (c != "compute" && c != "comm" && c != "wait") extra_rows[c] = next_row++;

  std::vector<const TraceSpan*> order;
  order.reserve(spans.size());
  for (const auto& s : spans) order.push_back(&s);
  // Per row by start time, longer spans first, so that nested spans follow the span that contains them.
  std::sort(order.begin(), order.end(), [&extra_rows](const TraceSpan* a, const TraceSpan* b) {
    const int ra = row_of(a->category, extra_rows), rb = row_of(b->category, extra_rows);
    return std::make_tuple(a->rank, a->agent, ra, a->start_s, b->end_s) <
           std::make_tuple(b->rank, b->agent, rb, b->start_s, a->end_s);
  });

  std::string out = "{\"displayTimeUnit\":\"ms\",\"otherData\":" + metadata.dump() + ",\"traceEvents\":[\n";
  out.reserve(out.size() + spans.size() * 140);
  bool first = true;
  auto emit = [&out, &first](const std::string& event) {
    if (!first) out += ",\n";
    first = false;
    out += event;
  };
  std::set<std::pair<int, int>> threads;  // (rank, tid)
  std::set<int> processes;
  char buf[160];
  for (const TraceSpan* s : order) {
    const int row = row_of(s->category, extra_rows);
    const int tid = s->agent * kRowsPerAgent + row;
    processes.insert(s->rank);
    threads.insert({s->rank, tid});
    std::string e = "{\"name\":" + quoted(s->name) + ",\"cat\":" + quoted(s->category);
    const double ts = s->start_s * 1e6, dur = (s->end_s - s->start_s) * 1e6;
    if (dur > 0) std::snprintf(buf, sizeof buf, ",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f", ts, dur);
    else std::snprintf(buf, sizeof buf, ",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.3f", ts);
    e += buf;
    std::snprintf(buf, sizeof buf, ",\"pid\":%d,\"tid\":%d", s->rank, tid);
    e += buf;
    if (const char* color = color_of(s->category)) e += std::string(",\"cname\":\"") + color + "\"";
    e += "}";
    emit(e);
  }
  for (int rank : processes) {
    emit("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(rank) +
         ",\"args\":{\"name\":\"rank " + std::to_string(rank) + "\"}}");
    emit("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + std::to_string(rank) +
         ",\"args\":{\"sort_index\":" + std::to_string(rank) + "}}");
  }
  for (const auto& [rank, tid] : threads) {
    const std::string ids = "\"pid\":" + std::to_string(rank) + ",\"tid\":" + std::to_string(tid);
    emit("{\"name\":\"thread_name\",\"ph\":\"M\"," + ids + ",\"args\":{\"name\":" +
         quoted(row_name(tid / kRowsPerAgent, tid % kRowsPerAgent, extra_rows)) + "}}");
    emit("{\"name\":\"thread_sort_index\",\"ph\":\"M\"," + ids + ",\"args\":{\"sort_index\":" + std::to_string(tid) +
         "}}");
  }
  out += "\n]}\n";
  return out;
}

}  // namespace quorum
