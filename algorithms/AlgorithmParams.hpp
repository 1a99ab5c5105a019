#pragma once
// Typed algorithm parameters (tau, group_size, collective, ...). The scenario layer checks them against each
// algorithm's ParamSpec list and hands over plain values, so algorithms never parse JSON.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace quorum {

using ParamValue = std::variant<bool, std::int64_t, double, std::string>;
enum class ParamType { Bool, Int, Double, String };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Int;
  // Value used when the scenario omits the field; nullopt means "derived" (e.g. from the world size) or optional,
  // which the description must explain.
  std::optional<ParamValue> default_value;
  std::string description;
  std::vector<std::string> choices;  // allowed values of a String parameter (empty: any)
  std::optional<double> min;         // lower bound of a numeric parameter
};

class AlgorithmParams {
 public:
  void set(const std::string& name, ParamValue value) { values_[name] = std::move(value); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }

  std::int64_t get_int(const std::string& name) const { return std::get<std::int64_t>(at(name)); }
  double get_double(const std::string& name) const {
    const ParamValue& v = at(name);
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    return std::get<double>(v);
  }
  bool get_bool(const std::string& name) const { return std::get<bool>(at(name)); }
  const std::string& get_string(const std::string& name) const { return std::get<std::string>(at(name)); }

  const std::map<std::string, ParamValue>& values() const { return values_; }

 private:
  const ParamValue& at(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) throw std::out_of_range("algorithm parameter '" + name + "' is not set");
    return it->second;
  }
  std::map<std::string, ParamValue> values_;
};

}  // namespace quorum
