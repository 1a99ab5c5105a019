#pragma once
// `quorum sweep --mpi`: under mpirun, each MPI rank runs its share of the points (rank i of N takes shard i/N) and
// rank 0 gathers every rank's outcomes, so that sweep.csv is complete even without a shared file system. Built only
// when CMake finds MPI; otherwise --mpi says so.
#include <memory>
#include <string>
#include <vector>

namespace quorum::mpi {
class MpiEnvironment;
}

namespace quorum::cli {

class MpiSweepSession {
 public:
  // Whether this quorum was built with MPI.
  static bool available();
  // Initialises MPI (throws std::runtime_error when built without it).
  MpiSweepSession();
  ~MpiSweepSession();  // finalises MPI
  MpiSweepSession(const MpiSweepSession&) = delete;
  MpiSweepSession& operator=(const MpiSweepSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank passes its text; rank 0 gets all of them in rank order, the others an empty list. Waiting ranks
  // sleep between polls instead of spinning, so that they leave the cores to the ranks still simulating.
  std::vector<std::string> gather_to_root(const std::string& mine);
  // Rank 0's exit status to every rank.
  int broadcast_status(int status);

 private:
  std::shared_ptr<mpi::MpiEnvironment> environment_;  // shared: its deleter is bound where the type is complete
  int rank_ = 0, size_ = 1;
};

}  // namespace quorum::cli
