#pragma once
// Communicators for the groups that native collectives run on, keyed by (members in order, channel), created by the
// members only (MPI_Comm_create_group: ranks outside the group take no part) on first use and cached.
//
// The cache is bounded, and eviction must be agreed: if one member freed a group's communicator while another kept
// it, the next collective on that group would deadlock. So a rank never frees on its own. When the cache grows past
// its capacity, the rank marks its least recently used entry; every collective on an entry carries one extra float
// in which each member puts 1 if it marked the entry, and after the collective (whose sum every member sees) all
// members free it together if the sum is positive. An entry marked but never used again stays until the run ends,
// so the bound is on the entries in use, not a hard limit.
#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "algorithms/comm/Group.hpp"

namespace quorum::mpi {

struct GroupCommunicator {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank_in_group = 0;
  std::mutex busy;             // one collective at a time per communicator
  std::vector<float> buffer;   // data, padding, then the eviction flag (see above)
  std::size_t dirty = 0;       // buffer[0, dirty) may hold an earlier result; beyond it everything is zero
  std::uint64_t last_use = 0;
  bool evict_requested = false;
  bool pinned = false;         // the whole world in rank order: never evicted
  std::shared_ptr<void> extension;  // e.g. an NCCL communicator over the same members, freed with this entry
};
using GroupCommunicatorPtr = std::shared_ptr<GroupCommunicator>;

class GroupCommunicators {
 public:
  // parent: the communicator groups are carved from (MpiWorld::collectives()); capacity: entries kept before the
  // least recently used one is marked for eviction.
  GroupCommunicators(MPI_Comm parent, std::size_t capacity);
  ~GroupCommunicators();
  GroupCommunicators(const GroupCommunicators&) = delete;
  GroupCommunicators& operator=(const GroupCommunicators&) = delete;

  // The communicator of (group, channel); the first call is collective over the group's members.
  GroupCommunicatorPtr acquire(const Group& group, int channel);
  // After a collective on entry whose eviction flags summed to evict_votes: frees it if positive (all members see
  // the same sum, so all free it).
  void release(const GroupCommunicatorPtr& entry, float evict_votes);

  std::size_t size() const;
  std::int64_t created() const;
  std::int64_t evicted() const;

 private:
  using Key = std::pair<std::vector<int>, int>;
  MPI_Comm parent_;
  std::size_t capacity_;
  int parent_size_ = 0;
  mutable std::mutex mutex_;
  std::map<Key, GroupCommunicatorPtr> entries_;
  std::uint64_t tick_ = 0;
  std::int64_t created_ = 0, evicted_ = 0;
};

}  // namespace quorum::mpi
