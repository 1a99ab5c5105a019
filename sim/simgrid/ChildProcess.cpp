#include "sim/simgrid/ChildProcess.hpp"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cmath>
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

namespace {

// In the child: runs body with the pipe's write end as error channel, then exits without running the parent's
// atexit handlers or destructors.
[[noreturn]] void child_main(int write_fd, const std::function<int()>& body) {
  error_fd = write_fd;
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

pid_t fork_child(int fds[2]) {
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  return pid;
}

void append_capped(std::string& text, const char* data, std::size_t n) {
  if (text.size() < 65536) text.append(data, std::min(n, 65536 - text.size()));
}

ChildResult wait_for(pid_t pid) {
  ChildResult result;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace

ChildResult run_in_child(const std::function<int()>& body) {
  int fds[2];
  const pid_t pid = fork_child(fds);
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], body);
  }
  ::close(fds[1]);
  std::string error_text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    append_capped(error_text, buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  ChildResult result = wait_for(pid);
  result.error_text = std::move(error_text);
  return result;
}

ChildPool::~ChildPool() {
  signal_all(SIGKILL);
  for (auto& c : children_) reap(c);
}

int ChildPool::start(const std::function<int()>& body) {
  const pid_t parent = ::getpid();
  int fds[2];
  const pid_t pid = fork_child(fds);
  if (pid == 0) {
    ::close(fds[0]);
    for (const auto& c : children_) ::close(c.fd);  // the siblings' pipes must see EOF when the siblings exit
    // The parent's handlers (a sweep catches SIGINT and SIGTERM to stop cleanly) must not keep a child alive.
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
    child_main(fds[1], body);
  }
  ::close(fds[1]);
  children_.push_back({next_id_, pid, fds[0], {}});
  return next_id_++;
}

ChildResult ChildPool::reap(Child& child) {
  if (child.fd >= 0) {
    ::close(child.fd);
    child.fd = -1;
  }
  ChildResult result = wait_for(child.pid);
  result.error_text = std::move(child.error_text);
  return result;
}

std::optional<std::pair<int, ChildResult>> ChildPool::wait_any(double timeout_s) {
  if (children_.empty()) return std::nullopt;
  std::vector<pollfd> fds;
  for (const auto& c : children_) fds.push_back({c.fd, POLLIN, 0});
  const int timeout_ms = timeout_s < 0 ? -1 : static_cast<int>(std::ceil(timeout_s * 1000));
  const int ready = ::poll(fds.data(), fds.size(), timeout_ms);
  if (ready <= 0) return std::nullopt;  // timeout, or interrupted by a signal
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    Child& c = children_[i];
    char buf[4096];
    const ssize_t n = ::read(c.fd, buf, sizeof buf);
    if (n > 0) {
      append_capped(c.error_text, buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    // End of file: the child has exited (or closed its error channel on the way out).
    Child done = std::move(c);
    children_.erase(children_.begin() + static_cast<std::ptrdiff_t>(i));
    const int id = done.id;
    return std::make_pair(id, reap(done));
  }
  return std::nullopt;
}

void ChildPool::signal_all(int sig) {
  for (const auto& c : children_) ::kill(c.pid, sig);
}

}  // namespace quorum
