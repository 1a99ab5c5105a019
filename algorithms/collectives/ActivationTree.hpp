#pragma once
// Activation broadcast of partial collectives (eager-SGD paper 002, sec. 4.1.1; WAGMA paper 000, sec. 3.1.1): the
// union of P binomial trees, one rooted at each rank, so any rank can activate a collective by sending along its own
// tree, and a receiver forwards along the tree of the activation it received.
//
// P a power of two: the trees of the butterfly (recursive doubling). With d = rank XOR root, the parent of a rank
// is rank XOR highbit(d), its children are rank XOR 2^k for every 2^k above highbit(d) (every 2^k at the root).
// This is the paper's Fig. 1: root 1 of 4 sends to 0 and 3, and 0 forwards to 2.
// Other P: the binomial trees of relative ranks d = (rank - root) mod P (parent d - lowbit(d), children d + 2^k for
// 2^k below lowbit(d)), which need no power of two. Either way a broadcast takes ceil(log2 P) hops.
#include <vector>

namespace quorum {

class ActivationTree {
 public:
  explicit ActivationTree(int world_size);

  int world_size() const { return p_; }
  // The ranks `rank` forwards root's activation to, biggest subtree first.
  std::vector<int> children(int rank, int root) const;
  // rank's parent in root's tree (-1 at the root).
  int parent(int rank, int root) const;
  // Every rank from which `rank` may receive an activation (its parent in some tree), ascending.
  std::vector<int> possible_parents(int rank) const;

 private:
  int p_;
  bool butterfly_;
};

}  // namespace quorum
