#pragma once
// Native allreduce over MPI: MPI_Iallreduce on the group's cached communicator, driven by the rank's progress engine
// and waited for through the calling agent's Comm (so the time counts as wait, and a waiting rank sleeps instead of
// spinning in MPI_Allreduce on a machine with fewer cores than ranks). With message_bytes = logical the vector is
// padded with zeros to the logical size, so the collective moves the bytes the simulation charges.
#include <memory>

#include "validation/mpi/GroupCommunicators.hpp"
#include "validation/mpi/NativeAllreduce.hpp"

namespace quorum::mpi {

// The padded buffer of a group communicator: data, zero padding up to the logical size, one eviction flag.
// Returns the number of floats to reduce (the flag is the last one).
std::size_t prepare_group_buffer(GroupCommunicator& entry, const std::vector<float>& data, double logical_bytes,
                                 bool pad_to_logical);
// Copies the result back and returns the summed eviction flag.
float finish_group_buffer(GroupCommunicator& entry, std::vector<float>& data, std::size_t count);
// Waits for MPI requests through the agent's Comm (the time counts as its wait).
GroupCommunicators::WaitRequests wait_through(MpiComm& comm);
// The sum over entry's members of data, in place, with MPI_Iallreduce on entry's communicator (the caller holds
// entry.busy). Returns the summed eviction flag, for GroupCommunicators::release.
float iallreduce_sum(MpiComm& comm, GroupCommunicator& entry, std::vector<float>& data, double logical_bytes,
                     bool pad_to_logical);

class MpiAllreduce final : public NativeAllreduce {
 public:
  MpiAllreduce(MPI_Comm parent, bool pad_to_logical, std::size_t cache_capacity = 64);
  void allreduce_sum(MpiComm& comm, std::vector<float>& data, const Group& group, double logical_bytes,
                     Channel channel) override;
  nlohmann::json stats() const override;

 private:
  GroupCommunicators groups_;
  bool pad_to_logical_;
};

}  // namespace quorum::mpi
