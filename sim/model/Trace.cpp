#include "sim/model/Trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>

#include "sim/model/KinetoTrace.hpp"

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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError("cannot read trace file '" + path + "'");
  if (in.get() == 0x1f && in.get() == 0x8b)
    throw TraceError("trace file '" + path +
                     "' is gzip-compressed but not JSON: only profiler traces (.json.gz) are read compressed; "
                     "decompress a CSV first");
  in.clear();
  in.seekg(0);
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

int find_column(const CsvTable& t, const std::string& name) {
  const auto it = std::find(t.header.begin(), t.header.end(), name);
  return it == t.header.end() ? -1 : static_cast<int>(it - t.header.begin());
}

int column_index(const CsvTable& t, const std::string& path, const std::string& wanted) {
  auto find = [&t](const std::string& name) { return find_column(t, name); };
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

double cell_as_number(const CsvTable& t, std::size_t row, int col, const std::string& path) {
  const auto& cells = t.rows[row];
  const std::string where = path + ":" + std::to_string(t.line_numbers[row]);
  if (col >= static_cast<int>(cells.size())) throw TraceError(where + ": missing column " + std::to_string(col + 1));
  double v;
  if (!parse_double(cells[static_cast<std::size_t>(col)], v))
    throw TraceError(where + ": '" + cells[static_cast<std::size_t>(col)] + "' is not a number");
  return v;
}

double cell_as_duration(const CsvTable& t, std::size_t row, int col, const std::string& path) {
  const double v = cell_as_number(t, row, col, path);
  if (v < 0)
    throw TraceError(path + ":" + std::to_string(t.line_numbers[row]) + ": negative duration " +
                     t.rows[row][static_cast<std::size_t>(col)]);
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

double DurationTrace::mean() const { return mean_of(all_); }
double DurationTrace::sd() const { return sd_of(all_); }

DurationTrace DurationTrace::from_sequence(std::vector<double> durations) {
  DurationTrace t;
  t.all_ = durations;
  t.sequences_.push_back(std::move(durations));
  t.rank_ids_.push_back(0);
  return t;
}

DurationTrace DurationTrace::from_entries(std::vector<Entry> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.rank != b.rank ? a.rank < b.rank : a.step < b.step; });
  DurationTrace t;
  t.has_ranks_ = true;
  for (const Entry& e : entries) {
    if (t.rank_ids_.empty() || t.rank_ids_.back() != e.rank) {
      t.rank_ids_.push_back(e.rank);
      t.sequences_.emplace_back();
    }
    t.sequences_.back().push_back(e.duration);
    t.all_.push_back(e.duration);
  }
  return t;
}

namespace {

DurationTrace read_csv_trace(const std::string& path, const std::string& column) {
  const CsvTable t = read_csv(path);
  const int dur_col = column_index(t, path, column);
  const int rank_col = find_column(t, "rank"), step_col = find_column(t, "step");
  if (rank_col < 0 || step_col < 0) {
    std::vector<double> values;
    values.reserve(t.rows.size());
    for (std::size_t r = 0; r < t.rows.size(); ++r) values.push_back(cell_as_duration(t, r, dur_col, path));
    return DurationTrace::from_sequence(std::move(values));
  }
  std::vector<DurationTrace::Entry> entries;
  entries.reserve(t.rows.size());
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const double rank = cell_as_number(t, r, rank_col, path);
    const double step = cell_as_number(t, r, step_col, path);
    if (std::floor(rank) != rank || std::floor(step) != step || rank < 0 || step < 0)
      throw TraceError(path + ":" + std::to_string(t.line_numbers[r]) + ": rank and step must be integers >= 0");
    entries.push_back({static_cast<std::int64_t>(rank), static_cast<std::int64_t>(step),
                       cell_as_duration(t, r, dur_col, path)});
  }
  return DurationTrace::from_entries(std::move(entries));
}

// One file's durations and, for a profiler trace that records it, its own rank.
struct FileTrace {
  DurationTrace trace;
  std::optional<std::int64_t> rank;
};

FileTrace read_file_trace(const std::string& path, const std::string& column) {
  if (!is_json_trace(path)) return {read_csv_trace(path, column), std::nullopt};
  if (!column.empty())
    throw TraceError("trace file '" + path + "' is a profiler trace (JSON): 'column' '" + column +
                     "' applies to CSV files only");
  ProfilerSteps steps = read_profiler_steps(path);
  return {DurationTrace::from_sequence(std::move(steps.durations_s)), steps.rank};
}

}  // namespace

DurationTrace read_duration_trace(const std::string& path, const std::string& column) {
  return read_file_trace(path, column).trace;
}

DurationTrace read_duration_traces(const std::vector<std::string>& paths, const std::string& column) {
  if (paths.empty()) throw TraceError("no trace file given");
  std::vector<FileTrace> files;
  files.reserve(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    try {
      files.push_back(read_file_trace(paths[i], column));
    } catch (const TraceError& e) {
      throw TraceError(e.what(), i);
    }
    if (paths.size() > 1 && files.back().trace.has_ranks())
      throw TraceError("trace file '" + paths[i] +
                           "' holds several ranks (rank and step columns): with several files, each is one rank's "
                           "sequence",
                       i);
  }
  if (files.size() == 1) return std::move(files.front().trace);
  // Ranks: the traces' own when every file records one (they must differ), else the order the files were given in.
  const bool own_ranks = std::all_of(files.begin(), files.end(), [](const FileTrace& f) { return f.rank.has_value(); });
  std::vector<DurationTrace::Entry> entries;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::int64_t rank = own_ranks ? *files[i].rank : static_cast<std::int64_t>(i);
    for (std::size_t j = 0; j < i && own_ranks; ++j)
      if (*files[j].rank == rank)
        throw TraceError("trace files '" + paths[j] + "' and '" + paths[i] + "' both record rank " +
                             std::to_string(rank) + " (distributedInfo.rank): give one file per rank",
                         i);
    const std::vector<double>& values = files[i].trace.all();
    for (std::size_t s = 0; s < values.size(); ++s)
      entries.push_back({rank, static_cast<std::int64_t>(s), values[s]});
  }
  return DurationTrace::from_entries(std::move(entries));
}

DurationStats describe_durations(std::vector<double> values) {
  DurationStats s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  const std::size_t n = values.size();
  s.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  s.mean = mean_of(values);
  s.sd = sd_of(values);
  return s;
}

}  // namespace quorum
