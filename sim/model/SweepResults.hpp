#pragma once
// Where a sweep keeps its results and how they are summed up. Layout of a sweep directory OUT:
//   OUT/sweep.csv                one row per point: the varied fields, status, error, dir, then the summary's numbers
//   OUT/sweep.json               the sweep: scenario file, base, axes, points
//   OUT/points/<id>/point.json   the point's scenario (written before it runs)
//   OUT/points/<id>/summary.json the finished run (written last; its presence marks the point done)
//   OUT/points/<id>/failure.json why the point failed, if it did
// A point counts as done only when its summary.json exists, its point.json holds the same scenario (its output block
// aside: which files a run writes does not change its results) and the files the output block asks for exist
// (iterations.csv, trace.json). So a rerun with other settings never mistakes old results for new ones, a rerun with
// --trace redoes points that have no trace, and --collect needs the same axes and --set, not the same output flags.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/model/Sweep.hpp"

namespace quorum {

struct PointOutcome {
  enum class Status { Ok, Failed, Missing };
  Status status = Status::Missing;
  std::string error;       // Failed: what went wrong
  nlohmann::json summary;  // Ok: summary.json
};
const char* to_string(PointOutcome::Status status);

// OUT/points/<id>, and the same relative to OUT (the dir column of sweep.csv).
std::string point_dir(const std::string& out, const SweepPoint& point);
std::string point_dir_relative(const SweepPoint& point);

// What point.json holds for a point whose relative file names resolve from base_dir.
nlohmann::json point_record(const SweepPoint& point, const std::string& base_dir);

// Whether dir holds a finished run of exactly this point, with the files its output block asks for.
bool point_is_done(const std::string& dir, const nlohmann::json& record);
// Clears earlier results of the point and writes its point.json (before it runs).
void prepare_point_dir(const std::string& dir, const nlohmann::json& record);
void write_point_failure(const std::string& dir, const std::string& error);
// The point's outcome as found on disk (Missing when there is nothing for this very point).
PointOutcome read_point_outcome(const std::string& dir, const nlohmann::json& record);

// The outcome as JSON and back (sweeps under MPI send outcomes to rank 0).
nlohmann::json outcome_to_json(const PointOutcome& outcome);
PointOutcome outcome_from_json(const nlohmann::json& j);

// sweep.csv: columns point, the varied fields, status, error, dir, the summaries' scalar fields (known ones first,
// in a fixed order), the resolved algorithm parameters (algorithm.<param>, where not varied), and every metric's
// count, mean, min and max (metrics.<name>.<stat>). Cells are quoted where needed (RFC 4180); empty for null.
std::string format_sweep_csv(const std::vector<SweepPoint>& points, const std::vector<PointOutcome>& outcomes);

// RFC 4180 quoting of one cell.
std::string csv_cell(const std::string& text);

}  // namespace quorum
