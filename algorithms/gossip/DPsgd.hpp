#pragma once
// D-PSGD (Lian et al., NeurIPS 2017; WAGMA paper sec. 2.2): a synchronous ring. Every step each rank sends its model
// to its two ring neighbours while it computes its gradient at that model, then replaces its model by the average
// of its own and its neighbours' (weights 1/3; 1/2 on two ranks, where both neighbours are the same rank) and
// applies the gradient: x <- W x - lr * g(x). W is symmetric and doubly stochastic, so the mean of the models is
// unchanged by the averaging. A rank waits only for its neighbours' models of the same step, so delays spread one
// hop per step rather than through a global barrier.
#include "algorithms/Algorithm.hpp"

namespace quorum {

class DPsgd final : public Algorithm {
 public:
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();
  // The distinct ring neighbours of rank (left, right), without rank itself: none on one rank, one on two.
  static std::vector<int> neighbours(int rank, int world_size);
};

}  // namespace quorum
