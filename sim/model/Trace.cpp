#include "sim/model/Trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

namespace quorum {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  auto flush = [&] {
    const auto b = cell.find_first_not_of(" \t\r");
    const auto e = cell.find_last_not_of(" \t\r");
    cells.push_back(b == std::string::npos ? std::string() : cell.substr(b, e - b + 1));
    cell.clear();
  };
  for (char c : line) {
    if (c == ',') flush();
    else cell += c;
  }
  flush();
  return cells;
}

namespace {

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

struct CsvTable {
  std::vector<std::string> header;  // empty if the file has none
  std::vector<std::vector<std::string>> rows;
  std::vector<int> line_numbers;
};

CsvTable read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw TraceError("cannot read trace file '" + path + "'");
  CsvTable t;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
    auto cells = split_csv_line(line);
    if (t.header.empty() && t.rows.empty()) {
      double probe;
      if (!parse_double(cells[0], probe)) {
        t.header = cells;
        continue;
      }
    }
    t.rows.push_back(std::move(cells));
    t.line_numbers.push_back(number);
  }
  if (t.rows.empty()) throw TraceError("trace file '" + path + "' has no data rows");
  return t;
}

int column_index(const CsvTable& t, const std::string& path, const std::string& wanted) {
  auto find = [&t](const std::string& name) {
    const auto it = std::find(t.header.begin(), t.header.end(), name);
    return it == t.header.end() ? -1 : static_cast<int>(it - t.header.begin());
  };
  if (!wanted.empty()) {
    const int i = find(wanted);
    if (i < 0) throw TraceError("trace file '" + path + "' has no column '" + wanted + "'");
    return i;
  }
  for (const char* name : {"duration", "duration_s", "compute_s", "seconds"})
    if (const int i = find(name); i >= 0) return i;
  if (t.rows.front().size() == 1) return 0;
  throw TraceError("trace file '" + path +
                   "': cannot tell which column holds durations (name one of duration, duration_s, compute_s, "
                   "seconds, or give 'column')");
}

double cell_as_duration(const CsvTable& t, std::size_t row, int col, const std::string& path) {
  const auto& cells = t.rows[row];
  const std::string where = path + ":" + std::to_string(t.line_numbers[row]);
  if (col >= static_cast<int>(cells.size())) throw TraceError(where + ": missing column " + std::to_string(col + 1));
  double v;
  if (!parse_double(cells[static_cast<std::size_t>(col)], v))
    throw TraceError(where + ": '" + cells[static_cast<std::size_t>(col)] + "' is not a number");
  if (v < 0) throw TraceError(where + ": negative duration " + cells[static_cast<std::size_t>(col)]);
  return v;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}
double sd_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return v.size() < 2 ? 0 : std::sqrt(s / static_cast<double>(v.size() - 1));
}

}  // namespace

double DurationSamples::mean() const { return mean_of(values); }
double DurationSamples::sd() const { return sd_of(values); }

DurationSamples read_duration_samples(const std::string& path, const std::string& column) {
  const CsvTable t = read_csv(path);
  const int col = column_index(t, path, column);
  DurationSamples s;
  for (std::size_t r = 0; r < t.rows.size(); ++r) s.values.push_back(cell_as_duration(t, r, col, path));
  return s;
}

RankStepTrace read_rank_step_trace(const std::string& path) {
  const CsvTable t = read_csv(path);
  const auto find = [&t](const std::string& name) {
    const auto it = std::find(t.header.begin(), t.header.end(), name);
    return it == t.header.end() ? -1 : static_cast<int>(it - t.header.begin());
  };
  const int rank_col = find("rank"), step_col = find("step");
  if (rank_col < 0 || step_col < 0)
    throw TraceError("trace file '" + path + "' needs a header with columns rank, step and a duration column");
  const int dur_col = column_index(t, path, "");
  RankStepTrace trace;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const double rank = cell_as_duration(t, r, rank_col, path);
    const double step = cell_as_duration(t, r, step_col, path);
    if (std::floor(rank) != rank || std::floor(step) != step)
      throw TraceError(path + ":" + std::to_string(t.line_numbers[r]) + ": rank and step must be integers");
    trace.add(static_cast<int>(rank), static_cast<std::int64_t>(step), cell_as_duration(t, r, dur_col, path));
  }
  trace.finalize();
  return trace;
}

void RankStepTrace::finalize() {
  for (auto& [rank, entries] : by_rank_) {
    std::sort(entries.begin(), entries.end());
    ranks_.push_back(std::move(entries));
  }
  by_rank_.clear();
}

double RankStepTrace::at(int rank, std::int64_t step) const {
  const auto& entries = ranks_[static_cast<std::size_t>(rank) % ranks_.size()];
  return entries[static_cast<std::size_t>(step) % entries.size()].second;
}

std::size_t RankStepTrace::size() const {
  std::size_t n = 0;
  for (const auto& entries : ranks_) n += entries.size();
  return n;
}

double RankStepTrace::mean() const {
  std::vector<double> all;
  for (const auto& entries : ranks_)
    for (const auto& e : entries) all.push_back(e.second);
  return mean_of(all);
}

double RankStepTrace::sd() const {
  std::vector<double> all;
  for (const auto& entries : ranks_)
    for (const auto& e : entries) all.push_back(e.second);
  return sd_of(all);
}

}  // namespace quorum
