#include "sim/model/Fields.hpp"

#include <cmath>
#include <filesystem>
#include <sstream>

namespace quorum {

std::string describe_json(const nlohmann::json& v) {
  std::string dumped = v.dump();
  if (dumped.size() > 60) dumped = dumped.substr(0, 57) + "...";
  return std::string(v.type_name()) + " " + dumped;
}

Fields::Fields(const nlohmann::json& object, std::string path) : object_(object), path_(std::move(path)) {
  if (!object_.is_object() && !object_.is_null())
    throw ScenarioError(path_.empty() ? "(root)" : path_, "must be a JSON object, got " + describe_json(object_));
}

const nlohmann::json* Fields::find(const std::string& key) const {
  if (!object_.is_object()) return nullptr;
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

bool Fields::has(const std::string& key) const { return find(key) != nullptr; }

const nlohmann::json& Fields::raw(const std::string& key) const {
  static const nlohmann::json null_value;
  const auto* v = find(key);
  return v ? *v : null_value;
}

void Fields::fail(const std::string& key, const std::string& message) const {
  throw ScenarioError(path_of(key), message);
}

std::int64_t Fields::integer(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min,
                             std::int64_t max) {
  used_.insert(key);
  const auto* v = find(key);
  std::int64_t value;
  if (v == nullptr) {
    if (!fallback) fail(key, "missing required field (an integer)");
    value = *fallback;
  } else {
    const bool integral_float = v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() &&
                                std::abs(v->get<double>()) < 9e15;
    if (!v->is_number_integer() && !integral_float) fail(key, "must be an integer, got " + describe_json(*v));
    value = v->is_number_integer() ? v->get<std::int64_t>() : static_cast<std::int64_t>(v->get<double>());
  }
  if (value < min || value > max) {
    std::ostringstream os;
    os << "must be an integer";
    if (min != std::numeric_limits<std::int64_t>::min()) os << " >= " << min;
    if (max != std::numeric_limits<std::int64_t>::max()) os << (min != std::numeric_limits<std::int64_t>::min() ? " and" : "") << " <= " << max;
    os << ", got " << value;
    fail(key, os.str());
  }
  resolved_[key] = value;
  return value;
}

double Fields::number(const std::string& key, std::optional<double> fallback, double min, double max) {
  used_.insert(key);
  const auto* v = find(key);
  double value;
  if (v == nullptr) {
    if (!fallback) fail(key, "missing required field (a number)");
    value = *fallback;
  } else {
    if (!v->is_number()) fail(key, "must be a number, got " + describe_json(*v));
    value = v->get<double>();
  }
  if (!std::isfinite(value) || value < min || value > max) {
    std::ostringstream os;
    os << "must be a finite number";
    if (std::isfinite(min)) os << " >= " << min;
    if (std::isfinite(max)) os << " <= " << max;
    os << ", got " << value;
    fail(key, os.str());
  }
  resolved_[key] = value;
  return value;
}

double Fields::positive(const std::string& key, std::optional<double> fallback) {
  const double value = number(key, fallback);
  if (!(value > 0)) fail(key, "must be a number > 0, got " + std::to_string(value));
  return value;
}

bool Fields::boolean(const std::string& key, std::optional<bool> fallback) {
  used_.insert(key);
  const auto* v = find(key);
  bool value;
  if (v == nullptr) {
    if (!fallback) fail(key, "missing required field (true or false)");
    value = *fallback;
  } else {
    if (!v->is_boolean()) fail(key, "must be true or false, got " + describe_json(*v));
    value = v->get<bool>();
  }
  resolved_[key] = value;
  return value;
}

std::string Fields::string(const std::string& key, std::optional<std::string> fallback,
                           const std::vector<std::string>& choices) {
  used_.insert(key);
  const auto* v = find(key);
  std::string value;
  auto allowed = [&choices] {
    std::string s;
    for (const auto& c : choices) s += (s.empty() ? "" : ", ") + c;
    return s;
  };
  if (v == nullptr) {
    if (!fallback)
      fail(key, "missing required field" + (choices.empty() ? std::string(" (a string)") : "; one of: " + allowed()));
    value = *fallback;
  } else {
    if (!v->is_string())
      fail(key, "must be a string" + (choices.empty() ? std::string() : " (one of: " + allowed() + ")") + ", got " +
                    describe_json(*v));
    value = v->get<std::string>();
  }
  if (!choices.empty() && std::find(choices.begin(), choices.end(), value) == choices.end())
    fail(key, "unknown value '" + value + "'; allowed: " + allowed());
  resolved_[key] = value;
  return value;
}

Fields Fields::object(const std::string& key, bool required) {
  used_.insert(key);
  static const nlohmann::json empty = nlohmann::json::object();
  const auto* v = find(key);
  if (v == nullptr) {
    if (required) fail(key, "missing required field (an object)");
    return Fields(empty, path_of(key));
  }
  if (!v->is_object()) fail(key, "must be a JSON object, got " + describe_json(*v));
  return Fields(*v, path_of(key));
}

std::vector<std::int64_t> Fields::integer_list(const std::string& key, std::int64_t min) {
  used_.insert(key);
  const auto* v = find(key);
  if (v == nullptr || !v->is_array()) fail(key, "must be a list of integers, got " + (v ? describe_json(*v) : "nothing"));
  std::vector<std::int64_t> out;
  for (const auto& e : *v) {
    if (!e.is_number_integer() || e.get<std::int64_t>() < min)
      fail(key, "every entry must be an integer >= " + std::to_string(min) + ", got " + describe_json(e));
    out.push_back(e.get<std::int64_t>());
  }
  resolved_[key] = out;
  return out;
}

void Fields::finish() const {
  if (!object_.is_object()) return;
  for (const auto& [key, value] : object_.items()) {
    if (used_.count(key)) continue;
    std::string known;
    for (const auto& k : used_) known += (known.empty() ? "" : ", ") + k;
    fail(key, "unknown field" + (known.empty() ? std::string() : "; known fields here: " + known));
  }
}

std::string resolve_scenario_path(const std::string& base_dir, const std::string& file) {
  std::filesystem::path p(file);
  if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
  return p.string();
}

}  // namespace quorum
