#pragma once
// A problem with a scenario or its inputs. The message names the field (dotted path) and what is allowed.
#include <stdexcept>
#include <string>

namespace quorum {

class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string field, std::string message)
      : std::runtime_error("scenario field '" + field + "': " + message),
        field_(std::move(field)),
        message_(std::move(message)) {}
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }  // without the field

 private:
  std::string field_;
  std::string message_;
};

}  // namespace quorum
