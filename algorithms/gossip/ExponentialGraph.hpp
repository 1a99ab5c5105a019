#pragma once
// SGP's time-varying directed exponential graph (Assran et al., "Stochastic Gradient Push for Distributed Deep
// Learning", ICML 2019, sec. 6 and its reference code; WAGMA paper sec. 2.2): rank i sends to i + 2^e (mod P) for
// e = 0 .. floor(log2(P-1)), cycling through these distances one step after the other. With m peers per step a
// step takes the next m distances of the cycle (the reference code's peers_per_itr rotation); when P has fewer than
// m distinct distances, every step uses all of them.
//
// The graph is circulant: every rank has the same out-distances, so it receives from exactly as many ranks as it
// sends to, and uniform push weights 1/(m+1) make each step's mixing matrix doubly stochastic.
#include <cstdint>
#include <vector>

namespace quorum {

class DirectedExponentialGraph {
 public:
  DirectedExponentialGraph(int world_size, int peers_per_step);

  // Distances used at this step: min(m, distances().size()) distinct values (empty when P = 1).
  std::vector<int> step_distances(std::int64_t step) const;
  std::vector<int> out_peers(int rank, std::int64_t step) const;
  // The ranks that send to rank at this step, in the order of step_distances().
  std::vector<int> in_peers(int rank, std::int64_t step) const;

  const std::vector<int>& distances() const { return distances_; }
  int world_size() const { return world_; }

 private:
  int world_;
  int peers_per_step_;
  std::vector<int> distances_;  // 1, 2, 4, ... below P
};

}  // namespace quorum
