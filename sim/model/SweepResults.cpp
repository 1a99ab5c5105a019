#include "sim/model/SweepResults.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sim/model/Results.hpp"

namespace quorum {

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

// The scenario without its output block: which files a run writes does not change its results.
nlohmann::json results_identity(nlohmann::json scenario) {
  if (scenario.is_object()) scenario.erase("output");
  return scenario;
}

bool same_point(const std::string& dir, const nlohmann::json& record) {
  const nlohmann::json stored = read_json_file(dir + "/point.json");
  return stored.is_object() &&
         results_identity(stored.value("scenario", nlohmann::json())) == results_identity(record["scenario"]) &&
         stored.value("base_dir", nlohmann::json()) == record["base_dir"];
}

// The files the point's output block asks for (iterations.csv unless switched off, trace.json with --trace).
bool has_requested_outputs(const std::string& dir, const nlohmann::json& scenario) {
  const nlohmann::json output = scenario.is_object() ? scenario.value("output", nlohmann::json::object())
                                                     : nlohmann::json::object();
  if (!output.is_object()) return true;
  const auto wants = [&output](const char* key, bool fallback) {
    return output.contains(key) && output[key].is_boolean() ? output[key].get<bool>() : fallback;
  };
  if (wants("iterations_csv", true) && !fs::is_regular_file(dir + "/iterations.csv")) return false;
  if (wants("trace", false) && !fs::is_regular_file(dir + "/trace.json")) return false;
  return true;
}

// The summary's scalar fields in the order sweep.csv shows them; others follow alphabetically.
const std::vector<std::string>& known_summary_fields() {
  static const std::vector<std::string> fields = {
      "name", "algorithm", "platform", "nodes", "ranks", "iterations", "workload_profile", "model_parameters",
      "imbalance", "fidelity", "backend", "throughput_steps_per_s", "samples_per_s", "ideal_steps_per_s",
      "sim_time_s", "wall_time_s", "mean_compute_s", "mean_comm_s", "mean_wait_s", "wait_fraction", "proxy_model",
      "final_test_accuracy", "final_loss", "time_to_target_s", "step_to_target", "target_resolution_steps",
      "rank0_test_accuracy", "rank0_loss", "initial_loss", "quorum_version"};
  return fields;
}

std::string cell_of(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_cell(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  return csv_cell(v.dump());
}

}  // namespace

const char* to_string(PointOutcome::Status status) {
  switch (status) {
    case PointOutcome::Status::Ok: return "ok";
    case PointOutcome::Status::Failed: return "failed";
    case PointOutcome::Status::Missing: return "missing";
  }
  return "missing";
}

std::string point_dir_relative(const SweepPoint& point) { return "points/" + point.id; }
std::string point_dir(const std::string& out, const SweepPoint& point) { return out + "/" + point_dir_relative(point); }

nlohmann::json point_record(const SweepPoint& point, const std::string& base_dir) {
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& s : point.settings) settings[s.column] = s.value;
  return {{"id", point.id}, {"index", point.index}, {"settings", settings}, {"base_dir", base_dir},
          {"scenario", point.scenario}};
}

bool point_is_done(const std::string& dir, const nlohmann::json& record) {
  return fs::is_regular_file(dir + "/summary.json") && same_point(dir, record) &&
         has_requested_outputs(dir, record["scenario"]);
}

void prepare_point_dir(const std::string& dir, const nlohmann::json& record) {
  fs::create_directories(dir);
  // summary.json first: with the old summary and a new point.json, an interrupted run would look finished.
  fs::remove(dir + "/summary.json");
  fs::remove(dir + "/failure.json");
  write_file_atomic(dir + "/point.json", record.dump(2) + "\n");
}

void write_point_failure(const std::string& dir, const std::string& error) {
  fs::create_directories(dir);
  write_file_atomic(dir + "/failure.json", nlohmann::json{{"error", error}}.dump(2) + "\n");
}

PointOutcome read_point_outcome(const std::string& dir, const nlohmann::json& record) {
  PointOutcome o;
  if (!same_point(dir, record)) return o;
  const nlohmann::json summary = read_json_file(dir + "/summary.json");
  if (summary.is_object()) {
    o.status = PointOutcome::Status::Ok;
    o.summary = summary;
    return o;
  }
  const nlohmann::json failure = read_json_file(dir + "/failure.json");
  if (failure.is_object()) {
    o.status = PointOutcome::Status::Failed;
    o.error = failure.value("error", std::string("unknown error"));
  }
  return o;
}

nlohmann::json outcome_to_json(const PointOutcome& o) {
  return {{"status", to_string(o.status)}, {"error", o.error}, {"summary", o.summary}};
}

PointOutcome outcome_from_json(const nlohmann::json& j) {
  PointOutcome o;
  const std::string status = j.value("status", std::string("missing"));
  o.status = status == "ok" ? PointOutcome::Status::Ok
             : status == "failed" ? PointOutcome::Status::Failed
                                  : PointOutcome::Status::Missing;
  o.error = j.value("error", std::string());
  o.summary = j.value("summary", nlohmann::json());
  return o;
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string format_sweep_csv(const std::vector<SweepPoint>& points, const std::vector<PointOutcome>& outcomes) {
  const std::vector<std::string> varied = sweep_columns(points);
  const std::set<std::string> varied_set(varied.begin(), varied.end());

  // Columns present in at least one summary.
  std::vector<std::string> scalars;
  std::set<std::string> seen_scalars, other_scalars, params, metrics;
  for (const auto& o : outcomes) {
    if (o.status != PointOutcome::Status::Ok || !o.summary.is_object()) continue;
    for (const auto& [key, value] : o.summary.items())
      if (value.is_primitive()) seen_scalars.insert(key);
    if (o.summary.contains("scenario") && o.summary["scenario"].contains("algorithm"))
      for (const auto& [key, value] : o.summary["scenario"]["algorithm"].items())
        if (value.is_primitive() && !varied_set.count("algorithm." + key)) params.insert(key);
    if (o.summary.contains("metrics") && o.summary["metrics"].is_object())
      for (const auto& [name, m] : o.summary["metrics"].items()) metrics.insert(name);
  }
  // A varied field named like a summary field (imbalance, fidelity) keeps its column: one column per name.
  for (const auto& f : known_summary_fields())
    if (seen_scalars.count(f) && !varied_set.count(f)) scalars.push_back(f);
  for (const auto& f : seen_scalars)
    if (std::find(scalars.begin(), scalars.end(), f) == scalars.end() && !varied_set.count(f)) scalars.push_back(f);
  params.erase("label");

  std::ostringstream os;
  os << "point";
  for (const auto& c : varied) os << "," << csv_cell(c);
  os << ",status,error,dir";
  for (const auto& f : scalars) os << "," << csv_cell(f);
  for (const auto& p : params) os << "," << csv_cell("algorithm." + p);
  for (const auto& m : metrics)
    for (const char* stat : {"count", "mean", "min", "max"}) os << "," << csv_cell("metrics." + m + "." + stat);
  os << "\n";

  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const PointOutcome& o = outcomes[i];
    os << csv_cell(p.id);
    for (const auto& s : p.settings) os << "," << cell_of(s.shown);
    os << "," << to_string(o.status) << "," << csv_cell(o.error) << "," << csv_cell(point_dir_relative(p));
    const bool ok = o.status == PointOutcome::Status::Ok && o.summary.is_object();
    for (const auto& f : scalars) os << "," << (ok && o.summary.contains(f) ? cell_of(o.summary[f]) : "");
    for (const auto& key : params) {
      std::string cell;
      if (ok && o.summary.contains("scenario") && o.summary["scenario"].contains("algorithm") &&
          o.summary["scenario"]["algorithm"].contains(key))
        cell = cell_of(o.summary["scenario"]["algorithm"][key]);
      os << "," << cell;
    }
    for (const auto& m : metrics)
      for (const char* stat : {"count", "mean", "min", "max"}) {
        std::string cell;
        if (ok && o.summary.contains("metrics") && o.summary["metrics"].contains(m) &&
            o.summary["metrics"][m].contains(stat))
          cell = cell_of(o.summary["metrics"][m][stat]);
        os << "," << cell;
      }
    os << "\n";
  }
  return os.str();
}

}  // namespace quorum
