#pragma once
// MPI for one process: MPI_Init_thread with MPI_THREAD_MULTIPLE (a rank's agents, its progress thread and its
// watchdog are threads that all call MPI), MPI_Finalize at the end. Also makes the process's sleeps precise (timer
// slack) because emulated compute is a sleep.
#include <string>

namespace quorum::mpi {

class MpiEnvironment {
 public:
  // Throws MpiError if the library cannot provide MPI_THREAD_MULTIPLE.
  MpiEnvironment(int* argc, char*** argv);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The MPI library's own version string, for result files.
  static std::string library_version();
  static std::string processor_name();

 private:
  int rank_ = 0, size_ = 1;
};

// Collective over MPI_COMM_WORLD: whether every rank passed true. Ranks that may disagree (a file readable on one
// node and not another) agree on this before going on, so that none is left waiting for the others.
bool all_ranks_agree(bool mine);

// Ends the whole job (every rank) after printing message on stderr; used when a rank cannot go on and the others
// would otherwise wait for it forever.
[[noreturn]] void abort_job(const std::string& message, int exit_code);

}  // namespace quorum::mpi
