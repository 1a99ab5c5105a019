#pragma once
// The one path from a scenario file to the runs it describes, for every command (run, run on MPI, calibrate,
// validate, sweep): read the JSON, apply --set overrides (which address algorithm lists, see apply_override), expand
// an algorithm list into one run per entry, parse each. Errors are ScenarioErrors naming the field as the file
// spells it: `algorithm[1].tau` for an entry of a list.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/model/Scenario.hpp"

namespace quorum {

// A scenario file after its overrides, not yet expanded: what a sweep crosses with its axes.
struct ScenarioDocument {
  nlohmann::json json;
  std::string base_dir;  // the file's folder: relative paths in the scenario are resolved against it
};
ScenarioDocument read_scenario_document(const std::string& path, const std::vector<std::string>& overrides);

// A scenario whose "algorithm" is a list stands for one run per entry, on the same platform, workload, imbalance
// and seed. Each variant has a label (the entry's "label", else its name, made unique) and the single-algorithm
// JSON.
struct ScenarioVariant {
  std::string label;
  nlohmann::json json;
};
std::vector<ScenarioVariant> expand_algorithms(const nlohmann::json& scenario);

// One run of a scenario file: its label, its single-algorithm JSON and the parsed scenario.
struct ScenarioRun {
  std::string label;
  nlohmann::json json;
  Scenario scenario;
};

// Parses every variant; in a list, an error in an entry is reported as algorithm[i].field, with the entry's label.
std::vector<ScenarioRun> parse_variants(const std::vector<ScenarioVariant>& variants, const std::string& base_dir);

// read_scenario_document + expand_algorithms + parse_variants.
std::vector<ScenarioRun> load_scenario_runs(const std::string& path, const std::vector<std::string>& overrides);

}  // namespace quorum
