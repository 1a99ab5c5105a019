#include "sim/simgrid/ChildProcess.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace quorum {

namespace {
int error_fd = -1;  // write end of the pipe to the parent, in a child
}

void report_error(const std::string& text) {
  if (error_fd < 0) return;
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(error_fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

ChildResult run_in_child(const std::function<int()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    error_fd = fds[1];
    int code = 1;
    try {
      code = body();
    } catch (const std::exception& e) {
      report_error(e.what());
      code = 1;
    }
    std::fflush(nullptr);
    ::_exit(code);
  }
  ::close(fds[1]);
  ChildResult result;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    if (result.error_text.size() < 65536) result.error_text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace quorum
