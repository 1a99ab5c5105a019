#pragma once
// Runs a function in a forked child process and returns its exit status. SimGrid allows one engine per process, so
// running several simulations from one program (algorithm comparisons, sweeps, tests) means one child each.
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace quorum {

struct ChildResult {
  int exit_code = -1;       // the child's exit status, or -1 if it died of a signal
  int signal = 0;           // the signal that killed it, if any
  std::string error_text;   // what the child wrote to its error channel (first 64 KiB)
};

// body's return value becomes the child's exit status; an exception escaping it is reported in error_text with
// exit status 1. Text written through report_error() in the child arrives in error_text.
ChildResult run_in_child(const std::function<int()>& body);

// In a child started by run_in_child or ChildPool: passes a message to the parent (ignored elsewhere).
void report_error(const std::string& text);

// Several children at once (parallel sweeps). Children die with the parent (Linux PR_SET_PDEATHSIG), so killing a
// sweep never leaves simulations running behind it.
class ChildPool {
 public:
  ChildPool() = default;
  ChildPool(const ChildPool&) = delete;
  ChildPool& operator=(const ChildPool&) = delete;
  ~ChildPool();  // kills and reaps children still running

  // Starts body in a forked child; returns an id for it (0, 1, 2, ...).
  int start(const std::function<int()>& body);
  // Waits up to timeout_s (negative: forever) until a child finishes; returns its id and result, or nothing if the
  // time ran out or no child is running. A signal arriving while waiting also returns nothing.
  std::optional<std::pair<int, ChildResult>> wait_any(double timeout_s);
  std::size_t running() const { return children_.size(); }
  // Sends sig to every running child.
  void signal_all(int sig);

 private:
  struct Child {
    int id;
    pid_t pid;
    int fd;  // read end of its error pipe
    std::string error_text;
  };
  ChildResult reap(Child& child);
  std::vector<Child> children_;
  int next_id_ = 0;
};

}  // namespace quorum
