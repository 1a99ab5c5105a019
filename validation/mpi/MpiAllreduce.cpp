#include "validation/mpi/MpiAllreduce.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "validation/mpi/MpiComm.hpp"
#include "validation/mpi/MpiError.hpp"

namespace quorum::mpi {

std::size_t prepare_group_buffer(GroupCommunicator& entry, const std::vector<float>& data, double logical_bytes,
                                 bool pad_to_logical) {
  std::size_t floats = data.size();
  if (pad_to_logical && logical_bytes > 0)
    floats = std::max(floats, static_cast<std::size_t>(std::ceil(logical_bytes / sizeof(float))));
  const std::size_t count = floats + 1;
  if (count > static_cast<std::size_t>(INT_MAX))
    throw MpiError("native allreduce of " + std::to_string(count) + " floats exceeds MPI's count limit");
  auto& b = entry.buffer;
  if (b.size() < count) b.resize(count, 0.0f);
  // Everything past the data must be zero (padding sums to zero); an earlier, longer vector may have left values.
  if (entry.dirty > data.size()) std::fill(b.begin() + static_cast<std::ptrdiff_t>(data.size()),
                                           b.begin() + static_cast<std::ptrdiff_t>(entry.dirty), 0.0f);
  std::copy(data.begin(), data.end(), b.begin());
  entry.dirty = data.size();
  b[count - 1] = entry.evict_requested ? 1.0f : 0.0f;
  return count;
}

float finish_group_buffer(GroupCommunicator& entry, std::vector<float>& data, std::size_t count) {
  auto& b = entry.buffer;
  std::copy(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(data.size()), data.begin());
  const float votes = b[count - 1];
  b[count - 1] = 0.0f;
  return votes;
}

GroupCommunicators::WaitRequests wait_through(MpiComm& comm) {
  return [&comm](MPI_Request* requests, int count) {
    std::vector<RequestPtr> pending;
    for (int i = 0; i < count; ++i) pending.push_back(comm.adopt(comm.runtime().engine()->track(requests[i])));
    comm.wait_all(pending);
  };
}

float iallreduce_sum(MpiComm& comm, GroupCommunicator& entry, std::vector<float>& data, double logical_bytes,
                     bool pad_to_logical) {
  const std::size_t count = prepare_group_buffer(entry, data, logical_bytes, pad_to_logical);
  auto& engine = *comm.runtime().engine();
  // Wait for every member first (stragglers: the progress thread pauses between polls), then reduce with the
  // progress thread polling continuously, since the reduction's rounds advance only while MPI is polled.
  MPI_Request arrival = MPI_REQUEST_NULL, request = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(entry.comm, &arrival), "MPI_Ibarrier");
  comm.wait(comm.adopt(engine.track(arrival)));
  check(MPI_Iallreduce(MPI_IN_PLACE, entry.buffer.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, entry.comm,
                       &request),
        "MPI_Iallreduce");
  comm.wait(comm.adopt(engine.track(request, true)));
  return finish_group_buffer(entry, data, count);
}

MpiAllreduce::MpiAllreduce(MPI_Comm parent, bool pad_to_logical, std::size_t cache_capacity)
    : groups_(parent, cache_capacity), pad_to_logical_(pad_to_logical) {}

void MpiAllreduce::allreduce_sum(MpiComm& comm, std::vector<float>& data, const Group& group, double logical_bytes,
                                 Channel channel) {
  if (!group.contains(comm.rank())) throw std::logic_error("native allreduce called by a rank outside its group");
  auto entry = groups_.acquire(group, static_cast<int>(channel), wait_through(comm));
  float votes = 0;
  {
    std::lock_guard busy(entry->busy);
    votes = iallreduce_sum(comm, *entry, data, logical_bytes, pad_to_logical_);
  }
  groups_.release(entry, votes);
}

nlohmann::json MpiAllreduce::stats() const {
  return {{"kind", "MPI_Iallreduce"},
          {"communicators_created", groups_.created()},
          {"communicators_evicted", groups_.evicted()},
          {"communicators_temporary", groups_.temporary()},
          {"communicators_cached", groups_.size()}};
}

}  // namespace quorum::mpi
