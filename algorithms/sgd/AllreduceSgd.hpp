#pragma once
// Allreduce-SGD: every step, the gradients of all ranks are averaged with a synchronous allreduce and every replica
// applies the same update (standard data-parallel training; WAGMA paper sec. 2.2). With overlap, the gradients are
// reduced in buckets during the backward pass, as PyTorch DDP and Horovod do (BucketReducer.hpp).
#include "algorithms/Algorithm.hpp"

namespace quorum {

class AllreduceSgd final : public Algorithm {
 public:
  AllreduceSgd(bool overlap, double bucket_bytes) : overlap_(overlap), bucket_bytes_(bucket_bytes) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  void run_overlapped(RankContext& ctx);
  bool overlap_;
  double bucket_bytes_;
};

}  // namespace quorum
