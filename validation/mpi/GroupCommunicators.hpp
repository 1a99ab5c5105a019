#pragma once
// Communicators for the groups that native collectives run on, keyed by (members in order, channel), created by the
// members only (MPI_Comm_create_group: ranks outside the group take no part) on first use and cached.
//
// The cache is bounded, and every decision about an entry must be the same on all its members: if one member freed a
// group's communicator while another kept it, the next collective on that group would deadlock.
//   - Admission: after creating a communicator the members agree (an allreduce of "I have room") whether to cache
//     it; if any member's cache is full, the communicator is temporary: used once, then freed by every member.
//   - Eviction: a rank whose cache is full marks its least recently used entry; every collective on an entry carries
//     one extra float in which each member puts 1 if it marked the entry, and after the collective (whose sum every
//     member sees) all members free it together if the sum is positive.
// So a rank holds at most `capacity` cached communicators (plus the world's, which is always kept, and one per agent
// creating one at the same moment). A pattern cycling through more groups than the capacity recreates communicators
// (costly, but correct); raise the capacity for it.
#include <mpi.h>

#include <cstdint>
#include <functional>
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
  bool pinned = false;         // the whole world in rank order: always cached, never evicted
  bool temporary = false;      // not cached (some member's cache was full): freed after its one use
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

  // Waits for non-blocking MPI requests (the caller's way: through its Comm, so the time counts as its wait).
  using WaitRequests = std::function<void(MPI_Request* requests, int count)>;
  // The communicator of (group, channel); the first call is collective over the group's members: they meet in a
  // barrier of point-to-point messages first (waited for with wait, so a late member shows as wait time, not as
  // time hidden in MPI_Comm_create_group), then create it.
  GroupCommunicatorPtr acquire(const Group& group, int channel, const WaitRequests& wait);
  // After a collective on entry whose eviction flags summed to evict_votes: frees it if temporary or if the sum is
  // positive (all members see the same sum, so all free it).
  void release(const GroupCommunicatorPtr& entry, float evict_votes);

  std::size_t size() const;
  std::int64_t created() const;
  std::int64_t evicted() const;
  std::int64_t temporary() const;  // created without being cached

 private:
  using Key = std::pair<std::vector<int>, int>;
  void meet(const Group& group, int channel, const WaitRequests& wait) const;
  MPI_Comm parent_;
  std::size_t capacity_;
  int parent_size_ = 0, parent_rank_ = 0;
  mutable std::mutex mutex_;
  std::map<Key, GroupCommunicatorPtr> entries_;
  std::uint64_t tick_ = 0;
  std::int64_t created_ = 0, evicted_ = 0, temporary_ = 0;
};

}  // namespace quorum::mpi
