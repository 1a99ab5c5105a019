#pragma once
// SGP, stochastic gradient push (Assran et al., ICML 2019; WAGMA paper sec. 2.2; eager-SGD paper Table 2): every
// rank keeps a push-sum numerator x and weight w (PushSum.hpp) and its model z = x / w. Each step it computes the
// gradient at z, applies the optimiser step to x, keeps 1/(m+1) of (x, w) and pushes the same share to its m
// out-peers of the time-varying directed exponential graph (ExponentialGraph.hpp, `neighbors` = m), and absorbs what
// its in-peers pushed.
//
// overlap = false: the pushes of a step are absorbed in the same step (every rank waits for its in-peers).
// overlap = true (the paper's overlap variant, as configured in the eager-SGD paper's Table 2): the pushes of step k
// travel during step k+1's computation and are absorbed at the end of step k+1, so communication is delayed by one
// step and overlaps computation; after the last step the last round is drained so no mass is lost.
#include "algorithms/Algorithm.hpp"

namespace quorum {

class Sgp final : public Algorithm {
 public:
  Sgp(int neighbors, bool overlap) : neighbors_(neighbors), overlap_(overlap) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  int neighbors_;
  bool overlap_;
};

}  // namespace quorum
