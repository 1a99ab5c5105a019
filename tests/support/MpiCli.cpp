#include "tests/support/MpiCli.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/TestPaths.hpp"

namespace quorum::testing {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

CliResult run_mpi_cli(int ranks, const std::string& args) {
  const std::string out = fresh_path("quorum-mpi-out"), err = fresh_path("quorum-mpi-err");
  const std::string cmd = "cd '" + source_dir() + "' && scripts/mpirun-local -np " + std::to_string(ranks) + " '" +
                          quorum_binary() + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

std::string write_temp_json(const std::string& stem, const std::string& json) {
  const std::string path = fresh_path(stem) + ".json";
  std::ofstream(path) << json;
  return path;
}

}  // namespace quorum::testing
