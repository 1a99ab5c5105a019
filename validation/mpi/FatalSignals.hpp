#pragma once
// What a dying rank can still say. A rank killed by a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) prints
// its rank and the step it was in before the default action (or MPI's own handler) runs; a rank terminated by the
// launcher (SIGTERM, as mpirun does to the survivors when a rank dies) prints the report the watchdog keeps ready
// (on rank 0: every rank's last heartbeat, which names the one that went silent). Async-signal-safe: the handlers
// only read atomics and preformatted text and call write().
#include <cstdint>
#include <string>

namespace quorum::mpi {

void install_fatal_signal_reporting(int rank);
// The step the rank's main agent is in (-1: before the first).
void report_current_step(std::int64_t step);
// Text printed if the launcher terminates this process (empty: nothing).
void set_termination_report(const std::string& text);
// This process is ending the job itself (MPI_Abort): stay quiet on the SIGTERM that may follow.
void mark_aborting();

}  // namespace quorum::mpi
