#pragma once
// Dynamic grouping of WAGMA-SGD (WAGMA paper 000, sec. 3.2, Algorithm 1). P ranks (a power of two) are split into
// P/S groups of S ranks (a power of two) at every training step t: the group of a rank is the sub-cube of the
// butterfly (hypercube) spanned by log2 S consecutive dimensions, starting at shift(t) = (t log2 S) mod log2 P and
// wrapping around. The next step starts where the previous one stopped, so an update spreads to all P ranks within
// log_S P steps. Fixed grouping (the paper's ablation) keeps the dimensions of step 0 for the whole run.
//
// Algorithm 1 writes "mask <<= shift"; its worked example (P = 8, S = 4: {0,1,2,3},{4,5,6,7} at t = 0 and
// {0,1,4,5},{2,3,6,7} at t = 1) only comes out with mask = 1 << shift in every round, which is what we implement.
#include <cstdint>
#include <vector>

#include "algorithms/comm/Group.hpp"

namespace quorum {

class ButterflyGrouping {
 public:
  // Throws std::invalid_argument (naming world_size or group_size) unless both are powers of two and S <= P.
  ButterflyGrouping(int world_size, int group_size, bool dynamic = true);

  int world_size() const { return world_size_; }
  int group_size() const { return group_size_; }
  bool dynamic() const { return dynamic_; }

  // The butterfly dimensions (bit positions) of step t, in the order their exchanges run.
  std::vector<int> dimensions(std::int64_t step) const;
  // The members of rank's group at step t, ascending.
  Group group_of(int rank, std::int64_t step) const;
  // Every group of step t, each ascending, ordered by smallest member, computed as Algorithm 1 states it (merging
  // the groups of every pair p, p XOR mask). group_of() gives the same groups directly.
  std::vector<Group> groups(std::int64_t step) const;

 private:
  int world_size_, group_size_;
  int global_phases_, group_phases_;
  bool dynamic_;
};

bool is_power_of_two(std::int64_t n);
// log2 of a power of two.
int log2_exact(std::int64_t n);

}  // namespace quorum
