#include "validation/mpi/WaitMode.hpp"

#include <sched.h>

#include <stdexcept>
#include <thread>

namespace quorum::mpi {

ProgressEngine::WaitMode resolve_wait_mode(const std::string& progress, int ranks_on_host, int cores) {
  if (progress == "spin") return ProgressEngine::WaitMode::Spin;
  if (progress == "sleep") return ProgressEngine::WaitMode::Sleep;
  if (progress == "auto")
    return ranks_on_host <= cores ? ProgressEngine::WaitMode::Spin : ProgressEngine::WaitMode::Sleep;
  throw std::invalid_argument("mpi.progress must be \"auto\", \"spin\" or \"sleep\", got \"" + progress + "\"");
}

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

const char* to_string(ProgressEngine::WaitMode mode) {
  return mode == ProgressEngine::WaitMode::Spin ? "spin" : "sleep";
}

}  // namespace quorum::mpi
