#include "cli/SweepMpi.hpp"

#include <chrono>
#include <exception>
#include <stdexcept>
#include <thread>

#ifdef QUORUM_HAVE_MPI
#include <mpi.h>

#include "validation/mpi/MpiEnvironment.hpp"
#endif

namespace quorum::cli {

#ifdef QUORUM_HAVE_MPI

namespace {
// MPI's blocking calls spin; a rank done with its share would take a core from a rank still simulating.
void wait_politely(MPI_Request& request) {
  int done = 0;
  for (;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}
}  // namespace

bool MpiSweepSession::available() { return true; }

// Through MpiEnvironment, as every MPI command: it refuses to start when MPI_* resolves to SimGrid's SMPI.
MpiSweepSession::MpiSweepSession() : environment_(std::make_shared<mpi::MpiEnvironment>(nullptr, nullptr)) {
  rank_ = environment_->rank();
  size_ = environment_->size();
}

MpiSweepSession::~MpiSweepSession() {
  // Leaving because of an error: the other ranks wait in a collective and MPI_Finalize would never return.
  if (std::uncaught_exceptions() > 0) MPI_Abort(MPI_COMM_WORLD, 1);
}

std::vector<std::string> MpiSweepSession::gather_to_root(const std::string& mine) {
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_), 0);
  MPI_Request request;
  MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  wait_politely(request);
  std::vector<int> offsets(static_cast<std::size_t>(size_), 0);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(rank_ == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  MPI_Igatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
               MPI_COMM_WORLD, &request);
  wait_politely(request);
  std::vector<std::string> out;
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r)
      out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                               static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  return out;
}

int MpiSweepSession::broadcast_status(int status) {
  MPI_Request request;
  MPI_Ibcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
  wait_politely(request);
  return status;
}

#else

bool MpiSweepSession::available() { return false; }
MpiSweepSession::MpiSweepSession() {
  throw std::runtime_error("--mpi: this quorum was built without MPI (install Open MPI, e.g. Debian's libopenmpi-dev, "
                           "and reconfigure); use --shard I/N to split a sweep over several jobs instead");
}
MpiSweepSession::~MpiSweepSession() = default;
std::vector<std::string> MpiSweepSession::gather_to_root(const std::string& mine) { return {mine}; }
int MpiSweepSession::broadcast_status(int status) { return status; }

#endif

}  // namespace quorum::cli
