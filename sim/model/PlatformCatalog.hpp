#pragma once
// The platforms a scenario can name, described as the algorithms describe themselves (algorithms/Algorithm.hpp): a
// name, a description, and every field with its type, default and allowed range. `quorum list platforms` prints
// these descriptions, and the parser reads every field through them, so what is listed is what is checked.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "platforms/PlatformConfig.hpp"
#include "sim/model/Fields.hpp"

namespace quorum {

enum class PlatformFieldType { Integer, Number, String, IntegerList, File, Table };

struct PlatformField {
  std::string name;
  PlatformFieldType type;
  std::optional<nlohmann::json> default_value;  // none: required where the field applies, unless optional
  bool optional = false;                        // may be absent, without a default (a file, a table)
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool positive = false;              // numbers: strictly above 0
  std::vector<std::string> allowed;   // strings: one of these
  std::string description;            // says when the field applies, if not always
};

class PlatformFieldReader;

struct PlatformInfo {
  std::string name, description;
  std::vector<PlatformField> fields;
  // Builds the platform from the scenario's platform block (relative files against base_dir).
  std::function<PlatformConfig(PlatformFieldReader&, const std::string& base_dir)> parse;
};

// Reads a platform block's fields through their descriptions: defaults, ranges and allowed values come from the
// PlatformField, and errors name the field (platform.nodes) and what is allowed.
class PlatformFieldReader {
 public:
  PlatformFieldReader(Fields& fields, const PlatformInfo& info) : fields_(fields), info_(info) {}
  std::int64_t integer(const std::string& name);
  double number(const std::string& name);
  std::string string(const std::string& name);
  std::vector<std::int64_t> integer_list(const std::string& name);
  bool has(const std::string& name) const { return fields_.has(name); }
  // The underlying fields, for what a description cannot say (files, tables, cross-field checks).
  Fields& fields() { return fields_; }

 private:
  const PlatformField& spec(const std::string& name) const;
  Fields& fields_;
  const PlatformInfo& info_;
};

// Every platform, in the order `quorum list` shows them.
const std::vector<PlatformInfo>& platform_catalog();

// Parses a scenario's platform block (its name picks the catalog entry); name receives the platform's name.
PlatformConfig parse_platform(Fields& fields, const std::string& base_dir, std::string& name);

// A field's type and default as `quorum list` shows them ("number, default 5.25e+09", "integer, required").
std::string describe_platform_field(const PlatformField& field);

}  // namespace quorum
