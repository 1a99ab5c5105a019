#pragma once
// Runs a function in a forked child process and returns its exit status. SimGrid allows one engine per process, so
// running several simulations from one program (algorithm comparisons, sweeps, tests) means one child each.
#include <functional>
#include <string>

namespace quorum {

struct ChildResult {
  int exit_code = -1;       // the child's exit status, or -1 if it died of a signal
  int signal = 0;           // the signal that killed it, if any
  std::string error_text;   // what the child wrote to its error channel (first 64 KiB)
};

// body's return value becomes the child's exit status; an exception escaping it is reported in error_text with
// exit status 1. Text written through report_error() in the child arrives in error_text.
ChildResult run_in_child(const std::function<int()>& body);

// In a child started by run_in_child: passes a message to the parent (ignored elsewhere).
void report_error(const std::string& text);

}  // namespace quorum
