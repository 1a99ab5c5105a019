#pragma once
// A problem with a scenario or its inputs. The message names the field (dotted path) and what is allowed.
#include <stdexcept>
#include <string>

namespace quorum {

class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string field, const std::string& message)
      : std::runtime_error("scenario field '" + field + "': " + message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

}  // namespace quorum
