#pragma once
// Enums that scenarios name as strings: each has a to_string(value) giving its name; parse_named reads it back.
#include <initializer_list>
#include <string>

namespace quorum {

// Sets `out` to the value among `values` whose to_string is `text`; false (out untouched) if none is.
template <typename Enum>
bool parse_named(const std::string& text, std::initializer_list<Enum> values, Enum& out) {
  for (Enum value : values)
    if (text == to_string(value)) {
      out = value;
      return true;
    }
  return false;
}

}  // namespace quorum
