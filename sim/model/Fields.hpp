#pragma once
// Reads one JSON object of a scenario with typed, checked accessors. Every accessor records the value it returns
// (the default when the field is absent) into resolved(), which becomes the "scenario" of summary.json; finish()
// rejects fields nobody asked for, so a typo is an error instead of a silent default.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/model/ScenarioError.hpp"

namespace quorum {

class Fields {
 public:
  // path: the object's dotted path ("" for the root).
  Fields(const nlohmann::json& object, std::string path);

  std::string path_of(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  bool has(const std::string& key) const;
  const nlohmann::json& raw(const std::string& key) const;

  // A missing field with no default is an error ("missing required field").
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback,
                       std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t max = std::numeric_limits<std::int64_t>::max());
  double number(const std::string& key, std::optional<double> fallback,
                double min = -std::numeric_limits<double>::infinity(),
                double max = std::numeric_limits<double>::infinity());
  // Like number, but the value must be strictly greater than min.
  double positive(const std::string& key, std::optional<double> fallback);
  bool boolean(const std::string& key, std::optional<bool> fallback);
  std::string string(const std::string& key, std::optional<std::string> fallback,
                     const std::vector<std::string>& choices = {});
  // A sub-object (an empty one if absent and not required).
  Fields object(const std::string& key, bool required = false);
  std::vector<std::int64_t> integer_list(const std::string& key, std::int64_t min);

  // Records a resolved value that was not read through an accessor (derived fields).
  void set_resolved(const std::string& key, nlohmann::json value) { resolved_[key] = std::move(value); }
  // Marks a field as read without resolving it (handled elsewhere).
  void mark_used(const std::string& key) { used_.insert(key); }
  // Throws for any field that no accessor read. known lists what is accepted, for the message.
  void finish() const;

  const nlohmann::json& resolved() const { return resolved_; }
  nlohmann::json& resolved() { return resolved_; }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

 private:
  const nlohmann::json* find(const std::string& key) const;

  const nlohmann::json& object_;
  std::string path_;
  std::set<std::string> used_;
  nlohmann::json resolved_ = nlohmann::json::object();
};

// Short description of a JSON value for error messages: type and value.
std::string describe_json(const nlohmann::json& v);

// A file named in a scenario: relative paths are relative to the scenario file's folder (base_dir).
std::string resolve_scenario_path(const std::string& base_dir, const std::string& file);

}  // namespace quorum
