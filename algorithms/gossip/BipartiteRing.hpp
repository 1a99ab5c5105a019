#pragma once
// AD-PSGD's communication graph (Lian et al., ICML 2018, sec. 3.3): a ring in which every rank is also joined to the
// ranks some hop distances away. Even ranks form the active set, odd ranks the passive set; because every hop
// distance is odd, every edge joins an active and a passive rank (the graph is bipartite), so an active rank only
// ever waits for a passive one, which answers requests one at a time: atomic pairwise averaging cannot deadlock
// (sec. 3.3.1). An even distance, or an odd number of ranks, would break this and is refused.
//
// hops: "ring" (distance 1), "exponential" (1 and 2^i + 1 for i >= 1, below P: the paper's "hops away" topology,
// whose formula the extracted text lost; this is the bipartite exponential graph of the SGP reference code by the
// same group), or a comma-separated list of odd distances ("1,3,7").
#include <string>
#include <vector>

namespace quorum {

class BipartiteRing {
 public:
  // Empty string when hops describes a valid bipartite graph on world_size ranks; otherwise why not, starting
  // with "hops: " (AlgorithmInfo::validate's convention).
  static std::string check(const std::string& hops, int world_size);
  // Throws std::invalid_argument with check()'s message when invalid.
  BipartiteRing(const std::string& hops, int world_size);

  static bool is_active(int rank) { return rank % 2 == 0; }
  // Distinct neighbours of rank (all in the other set), ascending.
  std::vector<int> neighbours(int rank) const;
  const std::vector<int>& distances() const { return distances_; }

 private:
  int world_;
  std::vector<int> distances_;
};

}  // namespace quorum
