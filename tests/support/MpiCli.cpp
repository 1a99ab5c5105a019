#include "tests/support/MpiCli.hpp"

#include <fstream>

#include "tests/support/TestPaths.hpp"

namespace quorum::testing {

CliResult run_mpi_cli(int ranks, const std::string& args) {
  return run_in_source_dir("scripts/mpirun-local -np " + std::to_string(ranks) + " '" + quorum_binary() + "' " + args);
}

std::string write_temp_json(const std::string& stem, const std::string& json) {
  const std::string path = fresh_path(stem) + ".json";
  std::ofstream(path) << json;
  return path;
}

}  // namespace quorum::testing
