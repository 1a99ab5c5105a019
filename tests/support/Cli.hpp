#pragma once
// Runs the quorum CLI as a user would and captures what it prints.
#include <string>

namespace quorum::testing {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

// args: everything after "quorum", already shell-quoted where needed.
CliResult run_cli(const std::string& args);

// Runs a shell command line from the source directory, capturing its stdout and stderr.
CliResult run_in_source_dir(const std::string& command);

// A fresh, not yet existing path under the temporary directory.
std::string fresh_path(const std::string& stem);

}  // namespace quorum::testing
