#pragma once
// Runs the quorum CLI under scripts/mpirun-local (N local ranks, the flags needed as root) and captures its output.
#include <string>

#include "tests/support/Cli.hpp"

namespace quorum::testing {

// args: everything after "quorum", already shell-quoted where needed.
CliResult run_mpi_cli(int ranks, const std::string& args);
// Writes JSON text to a fresh temporary file and returns its path.
std::string write_temp_json(const std::string& stem, const std::string& json);

}  // namespace quorum::testing
