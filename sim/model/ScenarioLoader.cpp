#include "sim/model/ScenarioLoader.hpp"

#include <filesystem>
#include <map>

namespace quorum {

ScenarioDocument read_scenario_document(const std::string& path, const std::vector<std::string>& overrides) {
  ScenarioDocument doc{read_scenario_json(path), std::filesystem::path(path).parent_path().string()};
  for (const auto& o : overrides) apply_override(doc.json, o);
  return doc;
}

std::vector<ScenarioVariant> expand_algorithms(const nlohmann::json& scenario) {
  if (!scenario.is_object() || !scenario.contains("algorithm") || !scenario["algorithm"].is_array())
    return {{scenario.is_object() && scenario.contains("algorithm") && scenario["algorithm"].is_object()
                 ? scenario["algorithm"].value("label", scenario["algorithm"].value("name", std::string("run")))
                 : std::string("run"),
             scenario}};
  const auto& list = scenario["algorithm"];
  if (list.empty()) throw ScenarioError("algorithm", "the list of algorithms is empty");
  std::map<std::string, int> uses;
  for (const auto& entry : list)
    if (entry.is_object()) ++uses[entry.value("label", entry.value("name", std::string("run")))];
  std::vector<ScenarioVariant> variants;
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    nlohmann::json entry = list[i];
    if (!entry.is_object())
      throw ScenarioError(std::string("algorithm[").append(std::to_string(i)).append("]"), "must be an object with a name");
    std::string label = entry.value("label", entry.value("name", std::string("run")));
    if (uses[label] > 1) label.append("_").append(std::to_string(++seen[label]));
    entry.erase("label");
    nlohmann::json one = scenario;
    one["algorithm"] = entry;
    variants.push_back({label, one});
  }
  return variants;
}

std::vector<ScenarioRun> parse_variants(const std::vector<ScenarioVariant>& variants, const std::string& base_dir) {
  std::vector<ScenarioRun> runs;
  runs.reserve(variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    try {
      runs.push_back({variants[i].label, variants[i].json, parse_scenario(variants[i].json, base_dir)});
    } catch (const ScenarioError& e) {
      // In a list, say which entry: `--set algorithm.tau=5` reaches every entry, and not all of them have a tau.
      const std::string prefix = "algorithm";
      const bool in_entry = e.field() == prefix || e.field().rfind(prefix + ".", 0) == 0;
      if (variants.size() == 1 || !in_entry) throw;
      throw ScenarioError("algorithm[" + std::to_string(i) + "]" + e.field().substr(prefix.size()),
                          e.message() + " (the entry labelled '" + variants[i].label + "')");
    }
  }
  return runs;
}

std::vector<ScenarioRun> load_scenario_runs(const std::string& path, const std::vector<std::string>& overrides) {
  const ScenarioDocument doc = read_scenario_document(path, overrides);
  return parse_variants(expand_algorithms(doc.json), doc.base_dir);
}

}  // namespace quorum
