#include "validation/mpi/MpiWorld.hpp"

#include <string>

#include "algorithms/comm/Tag.hpp"
#include "validation/mpi/MpiError.hpp"

namespace quorum::mpi {

namespace {
MPI_Comm duplicate(const char* name) {
  MPI_Comm c = MPI_COMM_NULL;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  MPI_Comm_set_name(c, name);
  return c;
}
}  // namespace

MpiWorld::MpiWorld() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && ub != nullptr) tag_ub_ = *ub;
  constexpr int kNeeded = (1 << 24) - 1;
  if (tag_ub_ < kNeeded)
    throw MpiError("this MPI library accepts tags up to " + std::to_string(tag_ub_) + " (MPI_TAG_UB), but quorum's "
                   "tags need " + std::to_string(kNeeded));
  MPI_Comm host = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host),
        "MPI_Comm_split_type (ranks per host)");
  MPI_Comm_size(host, &ranks_on_host_);
  MPI_Comm_free(&host);
  messages_ = duplicate("quorum-messages");
  data_ = duplicate("quorum-data");
  collectives_ = duplicate("quorum-collectives");
  control_ = duplicate("quorum-control");
}

MpiWorld::~MpiWorld() {
  for (MPI_Comm* c : {&messages_, &data_, &collectives_, &control_})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

}  // namespace quorum::mpi
