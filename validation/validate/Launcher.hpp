#pragma once
// How quorum validate starts MPI jobs. The default runs N ranks on this machine with Open MPI:
//   mpirun --oversubscribe --bind-to none --mca plm isolated --mca pml ob1 --mca btl vader,self
//          [--allow-run-as-root] -np N
// (shared-memory transport; more ranks than cores allowed; no core binding, since a rank has several threads; local
// launch without ssh; root allowed, as in CI containers). scripts/mpirun-local adds the same flags for manual runs. A user launcher
// ("mpirun --hostfile hosts", "srun -n {np}") replaces it: {np} is replaced by N, and "-np N" is appended when the
// launcher has no {np}.
#include <string>
#include <vector>

namespace quorum::validation {

std::vector<std::string> local_launcher(int np);
std::vector<std::string> parse_launcher(const std::string& launcher, int np);

// This executable (/proc/self/exe).
std::string self_executable();

struct ProcessResult {
  int exit_code = -1;  // -1: killed by a signal
  int signal = 0;
};
// Runs argv (no shell), stdout and stderr appended to the given files.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdout_file,
                          const std::string& stderr_file);

}  // namespace quorum::validation
