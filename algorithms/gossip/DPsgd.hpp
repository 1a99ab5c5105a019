#pragma once
// D-PSGD (Lian et al., NeurIPS 2017; WAGMA paper sec. 2.2): a synchronous ring. Every step each rank computes its
// gradient at its model x, exchanges x with its two ring neighbours, replaces x by the average of its own and its
// neighbours' models (weights 1/3; 1/2 on two ranks, where both neighbours are the same rank) and applies the
// gradient: x <- W x - lr * g(x). W is symmetric and doubly stochastic, so the averaging keeps the mean of the models.
//
// overlap = false (default, as the WAGMA and eager-SGD papers ran it: "all the processes need to finish the
// communications of the current step before going to the next step"): the exchange starts once the gradient is
// computed, so a rank waits for its neighbours' computation of the same step.
// overlap = true (Lian et al.: "steps 2 and 3 can run in parallel"): the model is sent as the step starts, and the
// transfer overlaps the computation; a neighbour's delay then reaches a rank one step later and is absorbed if it
// is shorter than that step's computation. The maths is the same; only the timing differs.
#include "algorithms/Algorithm.hpp"

namespace quorum {

class DPsgd final : public Algorithm {
 public:
  explicit DPsgd(bool overlap) : overlap_(overlap) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();
  // The distinct ring neighbours of rank (left, right), without rank itself: none on one rank, one on two.
  static std::vector<int> neighbours(int rank, int world_size);

 private:
  bool overlap_;
};

}  // namespace quorum
