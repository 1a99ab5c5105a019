#pragma once
// One rank's learner: its replica of the parameters, its optimiser state and its shard of the training data.
// Algorithms call it for the math of a step; with math off (model "none") every call is a no-op on empty vectors,
// so the same algorithm code serves timing-only runs.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/MathSetup.hpp"
#include "kernels/optim/SgdOptimizer.hpp"

namespace quorum {

class Trainer {
 public:
  Trainer(std::shared_ptr<const MathSetup> setup, int rank, int world_size);

  bool enabled() const { return setup_->enabled(); }
  std::size_t num_params() const { return params_.size(); }
  std::vector<float>& params() { return params_; }
  const std::vector<float>& params() const { return params_; }

  // Gradient of the loss on this rank's batch for this step (batch drawn from (seed, rank, step)).
  void compute_gradient(std::int64_t step, std::vector<float>& grad);
  // The same gradient, taken at a snapshot of the parameters rather than at the replica itself: for algorithms in
  // which another agent of the rank may change the replica while the gradient is computed (AD-PSGD, whose
  // communication agent averages the model concurrently).
  void compute_gradient_at(std::span<const float> params, std::int64_t step, std::vector<float>& grad);
  // One optimiser update with the given gradient, at the learning rate of the step whose gradient was computed
  // last (the rank's own local step: see LrSchedule.hpp).
  void apply_gradient(std::span<const float> grad);
  // compute_gradient + apply_gradient. The gradient lives in the calling thread's scratch vector, as the batch does.
  void local_step(std::int64_t step);

  double last_loss() const { return last_loss_; }
  const MathSetup& setup() const { return *setup_; }

 private:
  // Draws this step's batch into the calling thread's scratch batch and returns it. The batch lives only for one
  // gradient, so one per thread serves every rank: 1,024 ranks held 400 MB of batches (Fashion-MNIST, 128 rows) that
  // each step wrote cold, where one buffer per thread stays in cache.
  const Batch& sample_batch(std::int64_t step);

  std::shared_ptr<const MathSetup> setup_;
  int rank_;
  std::shared_ptr<const DataPartition> partition_;
  std::span<const std::int64_t> shard_;  // this rank's training samples (in partition_)
  std::int64_t step_ = 0;                // of the last gradient computed
  std::vector<float> params_;
  SgdOptimizer optimizer_;
  std::vector<std::int64_t> indices_;
  double last_loss_ = 0.0;
};

}  // namespace quorum
