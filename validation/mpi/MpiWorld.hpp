#pragma once
// The communicators of one run, duplicated from MPI_COMM_WORLD so that a run never matches a message left over from
// an earlier run in the same job (a fire-and-forget activation nobody received, for instance):
//   messages     headers of Comm's point-to-point messages, with Comm's tags
//   data         bulk payloads of large messages, with per-sender sequence tags (see ProgressEngine)
//   collectives  parent of the native collectives' group communicators
//   control      the watchdog's heartbeats, the start barrier and the gathering of results
// Collective over MPI_COMM_WORLD: every rank constructs and destroys it at the same point.
#include <mpi.h>

namespace quorum::mpi {

class MpiWorld {
 public:
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm messages() const { return messages_; }
  MPI_Comm data() const { return data_; }
  MPI_Comm collectives() const { return collectives_; }
  MPI_Comm control() const { return control_; }
  // Largest tag the library accepts (MPI_TAG_UB); Comm's tags need 2^24 - 1.
  int tag_ub() const { return tag_ub_; }
  // Ranks of this job on this rank's host (shared memory), this one included.
  int ranks_on_host() const { return ranks_on_host_; }

 private:
  int rank_ = 0, size_ = 1, tag_ub_ = 32767, ranks_on_host_ = 1;
  MPI_Comm messages_ = MPI_COMM_NULL, data_ = MPI_COMM_NULL, collectives_ = MPI_COMM_NULL, control_ = MPI_COMM_NULL;
};

}  // namespace quorum::mpi
