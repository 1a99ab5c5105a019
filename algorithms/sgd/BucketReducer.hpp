#pragma once
// Backward-pass overlap: a progress agent allreduces gradient buckets in the order the backward pass hands them
// over, while the main agent goes on computing (DDP's and Horovod's one communication stream: buckets are reduced
// one after the other, each as soon as its gradients are final and the previous bucket is done).
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/RankContext.hpp"
#include "algorithms/sgd/GradientBuckets.hpp"

namespace quorum {

class BucketReducer {
 public:
  BucketReducer(RankContext& ctx, std::vector<GradientBucket> buckets);
  BucketReducer(const BucketReducer&) = delete;
  BucketReducer& operator=(const BucketReducer&) = delete;

  const std::vector<GradientBucket>& buckets() const { return buckets_; }
  // The step whose gradient (the whole vector, real values cut as the buckets say) the next buckets belong to.
  void begin_step(std::int64_t step, std::vector<float>& gradient);
  // Bucket b's gradients are final: reduce it (in place, in the gradient vector) after the buckets before it.
  void ready(std::size_t b);
  // Blocks, as wait time, until every bucket of the step has been summed over the ranks.
  void wait_all();
  // Stops the agent (after the last step).
  void finish();

 private:
  struct Shared;
  void agent_loop(Comm& comm);
  RankContext& ctx_;
  std::vector<GradientBucket> buckets_;
  std::shared_ptr<Shared> shared_;
  std::unique_ptr<Agent> agent_;
};

}  // namespace quorum
