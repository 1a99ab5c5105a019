#pragma once
// Prague's Group Generator (Luo et al., ASPLOS 2020, sec. 4.1 and 5): the centralised component that forms the
// groups whose members average their models with a Partial All-Reduce, and serialises groups that share a worker.
// This class is its state machine, free of any communication (GroupGeneratorAgent.hpp runs it on a rank and talks
// to the workers), so its rules can be tested directly.
//
// Serialisation (sec. 4.1, Fig. 8). The lock vector has one bit per worker, set while the worker takes part in an
// active group. A group that is ready but has a locked member waits in the pending queue (a conflict); whenever
// locks are released the queue is scanned oldest first and every group none of whose members is locked starts, its
// members' bits set. So groups that share a worker never run at the same time, and since every active group
// completes (each member runs its active group at its next synchronisation point, or while draining after its last
// step) and releases its locks, some pending group can always start: no deadlock.
//
// Modes:
//  random  each request creates a new group: the requester and group_size - 1 other workers drawn at random
//          (Fig. 7 step 3). The drawn workers are drafted: they run the group at their next synchronisation point.
//  smart   Group Buffer (sec. 5.1): every worker has a buffer of the groups formed for it that it has not asked for
//          yet; a request takes the first one. Only when the buffer is empty does the generator form groups, by a
//          Group Division (GD): all idle workers (empty buffer) that pass the slowdown filter c_i - c_w < C_thres
//          (sec. 5.3; c = requests so far, i the initiator) are partitioned at random into groups of group_size.
//          With several ranks per node and inter_intra on, the division is Inter-Intra (sec. 5.2): one head per
//          node is drawn, heads are divided among themselves (inter-node groups), the other candidates of a node
//          into local groups, and every node's candidates get a second, intra-node group of all of them. A group
//          starts once every member has asked for it (P-Reduce is collective).
//  If a division leaves the initiator without a partner (every other worker busy or filtered out), it gets a
//  random group of the workers that pass the filter, as in random mode.
//
// A finished worker asks for nothing more: it is never drawn again, the groups already formed for it count as asked
// for, and it keeps serving them until it is released (finished and no unfinished group left).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace quorum {

enum class GroupMode { Random, Smart };

struct GroupGeneratorConfig {
  GroupMode mode = GroupMode::Smart;
  int workers = 1;
  int ranks_per_node = 1;
  int group_size = 3;
  std::int64_t c_thres = 5;
  bool inter_intra = true;
  std::uint64_t seed = 1;
};

// How a group came to be (the groups table's `kind` column).
enum class GroupKind : int { Random = 0, Division = 1, Inter = 2, Local = 3, Intra = 4, Fallback = 5 };

struct GroupRecord {
  std::int64_t id = 0;
  std::vector<int> members;  // ascending
  int initiator = 0;
  GroupKind kind = GroupKind::Random;
  double created_s = 0, ready_s = -1, activated_s = -1, done_s = -1;
  bool conflict = false;  // ready, but had to wait in the pending queue for a member
};

struct Activation {
  std::int64_t group = 0;
  std::vector<int> members;
  std::vector<bool> answers_request;  // per member: does this group answer that member's outstanding request
};

class GroupGenerator {
 public:
  explicit GroupGenerator(GroupGeneratorConfig config);

  // A worker asks for a group; returns the id of the group that answers it.
  std::int64_t request(int worker, double now);
  // A member has finished its part of the group's P-Reduce (it releases its lock).
  void acknowledge(int worker, std::int64_t group, double now);
  // The worker will ask for nothing more.
  void finish(int worker);
  // Groups that can start now, oldest first; each is returned once, with its members' locks taken.
  std::vector<Activation> take_activations(double now);
  // Groups that completed since the last call (every member acknowledged).
  std::vector<GroupRecord> take_completed();

  bool released(int worker) const;
  bool all_released() const;
  std::int64_t requests_of(int worker) const { return counter_[static_cast<std::size_t>(worker)]; }
  bool locked(int worker) const { return locked_[static_cast<std::size_t>(worker)]; }
  std::size_t buffered(int worker) const { return buffer_[static_cast<std::size_t>(worker)].size(); }
  const GroupRecord* group(std::int64_t id) const;
  std::size_t pending() const { return pending_; }

 private:
  struct Group {
    GroupRecord record;
    std::vector<bool> asked;  // per member
    int acknowledged = 0;
    bool active = false;
    bool listed = false;  // in recheck_
  };
  std::int64_t create(std::vector<int> members, int initiator, GroupKind kind, double now);
  void divide(int initiator, double now);
  std::vector<int> draw_random_group(int initiator, const std::vector<int>& pool) ;
  bool passes_filter(int initiator, int worker) const;
  void mark_asked(Group& g, int worker, double now);
  bool is_ready(const Group& g) const;
  void recheck(Group& g);

  GroupGeneratorConfig config_;
  std::int64_t next_id_ = 0;
  // Unfinished groups by id; looked up by id only (a tree's walk to an id missed the cache at thousands of groups).
  std::unordered_map<std::int64_t, Group> groups_;
  std::vector<std::deque<std::int64_t>> queue_;        // per worker: its unfinished groups, creation order
  std::vector<std::deque<std::int64_t>> buffer_;       // per worker: groups formed but not yet asked for (smart)
  std::vector<std::optional<std::int64_t>> awaiting_;  // per worker: the group answering its outstanding request
  std::vector<std::int64_t> counter_;                  // per worker: requests so far (c_w)
  std::vector<bool> locked_, finished_;
  std::size_t pending_ = 0;                             // groups not yet active
  std::vector<std::int64_t> recheck_;                  // pending groups that may start now (take_activations)
  std::vector<GroupRecord> completed_;
};

}  // namespace quorum
