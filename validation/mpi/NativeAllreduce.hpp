#pragma once
// A native synchronous allreduce of the MPI backend (MPI_Allreduce, or NCCL on GPUs). The calling agent's Comm handle
// is passed so the time spent waiting for the collective counts as that agent's wait time, as it does in simulation.
#include <nlohmann/json.hpp>

#include <vector>

#include "algorithms/comm/Group.hpp"
#include "algorithms/comm/Tag.hpp"

namespace quorum::mpi {

class MpiComm;

class NativeAllreduce {
 public:
  virtual ~NativeAllreduce() = default;
  // Element-wise sum over group, in place. Every member calls it with the same group, channel and sizes.
  virtual void allreduce_sum(MpiComm& comm, std::vector<float>& data, const Group& group, double logical_bytes,
                             Channel channel) = 0;
  // What it did, for summary.json (communicators created and evicted, ...).
  virtual nlohmann::json stats() const = 0;
};

}  // namespace quorum::mpi
