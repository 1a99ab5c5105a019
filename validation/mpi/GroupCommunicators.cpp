#include "validation/mpi/GroupCommunicators.hpp"

#include <algorithm>

#include "validation/mpi/MpiError.hpp"

namespace quorum::mpi {

GroupCommunicators::GroupCommunicators(MPI_Comm parent, std::size_t capacity)
    : parent_(parent), capacity_(std::max<std::size_t>(capacity, 1)) {
  MPI_Comm_size(parent_, &parent_size_);
  MPI_Comm_rank(parent_, &parent_rank_);
}

void GroupCommunicators::meet(const Group& group, int channel, const WaitRequests& wait) const {
  // A dissemination barrier of empty messages on the parent, with tags above those MPI_Comm_create_group uses.
  constexpr int kMeetTag = 4096;
  const int n = group.size(), me = group.index_of(parent_rank_);
  for (int k = 1; k < n; k <<= 1) {
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    check(MPI_Irecv(nullptr, 0, MPI_BYTE, group.rank_at((me - k + n) % n), kMeetTag + channel, parent_, &requests[0]),
          "MPI_Irecv (group barrier)");
    check(MPI_Isend(nullptr, 0, MPI_BYTE, group.rank_at((me + k) % n), kMeetTag + channel, parent_, &requests[1]),
          "MPI_Isend (group barrier)");
    wait(requests, 2);
  }
}

GroupCommunicators::~GroupCommunicators() {
  std::lock_guard lock(mutex_);
  for (auto& [key, entry] : entries_) {
    entry->extension.reset();
    if (entry->comm != MPI_COMM_NULL) MPI_Comm_free(&entry->comm);
  }
}

GroupCommunicatorPtr GroupCommunicators::acquire(const Group& group, int channel, const WaitRequests& wait) {
  Key key{group.members, channel};
  {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(key);
    if (it != entries_.end()) {
      it->second->last_use = ++tick_;
      return it->second;
    }
  }
  // Create outside the lock: creation blocks until every member arrives, and another agent of this rank may need
  // the cache meanwhile for a different group.
  for (int m : group.members)
    if (m < 0 || m >= parent_size_)
      throw MpiError("native allreduce: rank " + std::to_string(m) + " is not in the world of " +
                     std::to_string(parent_size_) + " ranks");
  meet(group, channel, wait);
  MPI_Group parent_group = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
  MPI_Comm_group(parent_, &parent_group);
  check(MPI_Group_incl(parent_group, group.size(), group.members.data(), &members), "MPI_Group_incl");
  auto entry = std::make_shared<GroupCommunicator>();
  // The tag keeps concurrent creations by different agents (which use different channels) apart.
  const int rc = MPI_Comm_create_group(parent_, members, channel, &entry->comm);
  MPI_Group_free(&members);
  MPI_Group_free(&parent_group);
  check(rc, "MPI_Comm_create_group");
  MPI_Comm_set_errhandler(entry->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(entry->comm, &entry->rank_in_group);
  bool world_order = group.size() == parent_size_;
  for (int i = 0; world_order && i < group.size(); ++i) world_order = group.members[static_cast<std::size_t>(i)] == i;
  entry->pinned = world_order;

  // Admission, agreed by all members: cache it only if every member has room.
  int room = 0;
  {
    std::lock_guard lock(mutex_);
    std::size_t cached = 0;
    for (const auto& [k, e] : entries_) cached += e->pinned ? 0 : 1;
    room = entry->pinned || cached < capacity_ ? 1 : 0;
  }
  MPI_Request agree = MPI_REQUEST_NULL;
  check(MPI_Iallreduce(MPI_IN_PLACE, &room, 1, MPI_INT, MPI_MIN, entry->comm, &agree), "MPI_Iallreduce (admission)");
  wait(&agree, 1);

  std::lock_guard lock(mutex_);
  ++created_;
  entry->last_use = ++tick_;
  if (room) {
    entries_[key] = entry;
  } else {
    entry->temporary = true;
    ++temporary_;
  }
  // A full cache makes room for later groups: its least recently used entry goes at its next use.
  std::size_t cached = 0;
  for (const auto& [k, e] : entries_) cached += e->pinned ? 0 : 1;
  if (!room || cached >= capacity_) {
    GroupCommunicator* oldest = nullptr;
    for (auto& [k, e] : entries_)
      if (!e->pinned && !e->evict_requested && e != entry && (!oldest || e->last_use < oldest->last_use))
        oldest = e.get();
    if (oldest) oldest->evict_requested = true;
  }
  return entry;
}

void GroupCommunicators::release(const GroupCommunicatorPtr& entry, float evict_votes) {
  if (!entry->temporary && evict_votes <= 0.0f) return;
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->second == entry) {
      entries_.erase(it);
      break;
    }
  entry->extension.reset();
  if (entry->comm != MPI_COMM_NULL) MPI_Comm_free(&entry->comm);
  if (!entry->temporary) ++evicted_;
}

std::size_t GroupCommunicators::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::int64_t GroupCommunicators::created() const {
  std::lock_guard lock(mutex_);
  return created_;
}

std::int64_t GroupCommunicators::temporary() const {
  std::lock_guard lock(mutex_);
  return temporary_;
}

std::int64_t GroupCommunicators::evicted() const {
  std::lock_guard lock(mutex_);
  return evicted_;
}

}  // namespace quorum::mpi
