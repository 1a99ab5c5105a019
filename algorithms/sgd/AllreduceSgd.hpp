#pragma once
// Allreduce-SGD: every step, the gradients of all ranks are averaged with a synchronous allreduce and every replica
// applies the same update (standard data-parallel training; WAGMA paper sec. 2.2).
#include "algorithms/Algorithm.hpp"

namespace quorum {

class AllreduceSgd final : public Algorithm {
 public:
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();
};

}  // namespace quorum
