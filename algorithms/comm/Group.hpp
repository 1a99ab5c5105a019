#pragma once
// An ordered set of ranks taking part in a collective. The order fixes ring neighbours and butterfly partners.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace quorum {

struct Group {
  std::vector<int> members;

  int size() const { return static_cast<int>(members.size()); }
  int rank_at(int index) const { return members[static_cast<std::size_t>(index)]; }
  // Position of rank in the group; throws std::logic_error if it is not a member. O(1) where the rank sits at its own
  // index (every rank of the world group), else a scan.
  int index_of(int rank) const {
    if (rank >= 0 && rank < size() && members[static_cast<std::size_t>(rank)] == rank) return rank;
    const auto it = std::find(members.begin(), members.end(), rank);
    if (it == members.end()) throw std::logic_error("rank is not a member of the group");
    return static_cast<int>(it - members.begin());
  }
  bool contains(int rank) const { return std::find(members.begin(), members.end(), rank) != members.end(); }

  static Group world(int size) {
    Group g;
    g.members.resize(static_cast<std::size_t>(size));
    std::iota(g.members.begin(), g.members.end(), 0);
    return g;
  }
};

}  // namespace quorum
