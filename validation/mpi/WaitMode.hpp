#pragma once
// How a rank's agents wait for communication (MpiSettings::progress resolved on the machine at hand): spin when every
// rank of the host can have a core of its own, else sleep (see ProgressEngine::WaitMode).
#include <string>

#include "validation/mpi/ProgressEngine.hpp"

namespace quorum::mpi {

// progress: "spin", "sleep" or "auto"; auto spins when ranks_on_host <= cores.
ProgressEngine::WaitMode resolve_wait_mode(const std::string& progress, int ranks_on_host, int cores);
// The cores this process may run on (its affinity mask; the whole machine under mpirun --bind-to none).
int usable_cores();
const char* to_string(ProgressEngine::WaitMode mode);

}  // namespace quorum::mpi
