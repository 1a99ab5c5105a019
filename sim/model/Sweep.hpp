#pragma once
// Sweeps: many runs of one scenario with some fields varied. An axis varies one field over a list of values, or
// several fields together (zipped: the i-th values go together); the points are the cartesian product of the axes,
// the first axis outermost. Backend-neutral: the CLI runs the points (cli/SweepRunner), this file only says
// what they are.
//
// A scenario may carry its sweep in a "sweep" block (the rest of the scenario is the base every point starts from):
//   "sweep": {
//     "vary": {"algorithm.name": ["allreduce", "local_sgd"], "platform.nodes": [4, 8, 16],
//              "workload.iterations": [100, 200, 400]},
//     "zip": [["platform.nodes", "workload.iterations"]]
//   }
// The command line adds axes with --vary FIELD=V1,V2,... (or FIELD=[JSON array]) and zips them with --zip F1,F2.
// When the base scenario's "algorithm" is a list, its entries form an implicit first axis (column algorithm.label).
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace quorum {

struct SweepAxis {
  std::vector<std::string> fields;                 // dotted paths set by this axis (several when zipped)
  std::vector<std::vector<nlohmann::json>> values;  // values[i][k]: field k's value at the axis' i-th position
  std::size_t size() const { return values.size(); }
};

struct SweepSpec {
  std::vector<SweepAxis> axes;
  std::size_t point_count() const;
};

// One field's value at a point.
struct SweepSetting {
  std::string column;  // the sweep.csv column: the dotted path (algorithm.label for an algorithm list)
  std::string path;    // the scenario field it sets
  nlohmann::json value;
  std::string text;     // how the value reads in the point's id (a short hash for long or odd values)
  nlohmann::json shown;  // how it reads in sweep.csv: the value (the entry's label for an algorithm list)
};

struct SweepPoint {
  std::size_t index = 0;  // position in the product (points an algorithm list leaves out leave gaps)
  std::string id;         // stable, readable, file-name safe: "algorithm.name=allreduce,platform.nodes=8"
  std::vector<SweepSetting> settings;
  nlohmann::json scenario;  // the base with the settings applied (no sweep block)
};

// The "sweep" block; vary_order lists its fields in the file's order (JSON objects do not keep it), empty for
// alphabetical. Throws ScenarioError naming the field.
SweepSpec parse_sweep_block(const nlohmann::json& block, const std::vector<std::string>& vary_order = {});
// One --vary FIELD=V1,V2,... (values parsed as JSON, else strings) or FIELD=[JSON array].
SweepAxis parse_vary_option(const std::string& text);
// Adds an axis; one that varies a field already varied replaces that axis (the command line overrides the block).
void add_axis(SweepSpec& spec, SweepAxis axis);
// Merges the axes of the named fields (each varied alone so far, all of the same length) into one zipped axis,
// at the place of the first.
// where names the option or block entry in errors.
void zip_axes(SweepSpec& spec, const std::vector<std::string>& fields, const std::string& where = "--zip");

// Every point of the sweep over base (a scenario without its sweep block is fine; one with it has it removed).
std::vector<SweepPoint> expand_sweep(const nlohmann::json& base, const SweepSpec& spec);

// The CSV columns of the varied fields, in axis order.
std::vector<std::string> sweep_columns(const std::vector<SweepPoint>& points);

// --shard I/N: I in [0, N). Throws std::invalid_argument.
struct Shard {
  int index = 0, count = 1;
  bool owns(std::size_t point_index) const { return static_cast<int>(point_index % static_cast<std::size_t>(count)) == index; }
};
Shard parse_shard(const std::string& text);

}  // namespace quorum
