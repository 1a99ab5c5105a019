#include "tests/support/Cli.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/Files.hpp"
#include "tests/support/TestPaths.hpp"

namespace quorum::testing {

std::string fresh_path(const std::string& stem) {
  static std::atomic<int> counter{0};
  const auto p = std::filesystem::temp_directory_path() /
                 (stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(p);
  return p.string();
}

CliResult run_in_source_dir(const std::string& command) {
  const std::string out = fresh_path("quorum-cli-out"), err = fresh_path("quorum-cli-err");
  const std::string cmd = "cd '" + source_dir() + "' && " + command + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

CliResult run_cli(const std::string& args) { return run_in_source_dir("'" + quorum_binary() + "' " + args); }

}  // namespace quorum::testing
