#include "validation/validate/Launcher.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace quorum::validation {

std::vector<std::string> local_launcher(int np) {
  std::vector<std::string> argv = {"mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "plm", "isolated",
                                   "--mca",  "pml",             "ob1",       "--mca", "btl",   "vader,self"};
  if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
  argv.push_back("-np");
  argv.push_back(std::to_string(np));
  return argv;
}

std::vector<std::string> parse_launcher(const std::string& launcher, int np) {
  std::vector<std::string> argv;
  std::istringstream in(launcher);
  std::string word;
  bool has_np = false;
  while (in >> word) {
    const auto at = word.find("{np}");
    if (at != std::string::npos) {
      word.replace(at, 4, std::to_string(np));
      has_np = true;
    }
    argv.push_back(word);
  }
  if (argv.empty()) throw std::invalid_argument("--launcher is empty");
  if (!has_np) {
    argv.push_back("-np");
    argv.push_back(std::to_string(np));
  }
  return argv;
}

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this executable: " + ec.message());
  return p.string();
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdout_file,
                          const std::string& stderr_file) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    const int out = ::open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (out >= 0) ::dup2(out, STDOUT_FILENO);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    ::execvp(args[0], args.data());
    const std::string msg = "cannot start " + argv[0] + ": " + std::strerror(errno) + "\n";
    if (::write(STDERR_FILENO, msg.data(), msg.size()) < 0) {
    }
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ProcessResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace quorum::validation
