#include "kernels/Trainer.hpp"

#include "kernels/random/SeedStream.hpp"

namespace quorum {

Trainer::Trainer(std::shared_ptr<const MathSetup> setup, int rank, int world_size)
    : setup_(std::move(setup)),
      rank_(rank),
      optimizer_(setup_->config.sgd, setup_->model ? setup_->model->num_params() : 0) {
  if (!setup_->enabled()) return;
  const std::size_t n = setup_->model->num_params();
  if (setup_->initial_params.size() == n) {
    params_ = setup_->initial_params;
  } else {
    params_.resize(n);
    setup_->model->init(params_, setup_->seed);
  }
  partition_ = setup_->partition(world_size);
  shard_ = partition_->shards.at(static_cast<std::size_t>(rank));
}

const Batch& Trainer::sample_batch(std::int64_t step) {
  Rng rng(setup_->seed, Stream::Batch, static_cast<std::uint64_t>(rank_), static_cast<std::uint64_t>(step));
  const std::int64_t b = setup_->config.batch;
  const auto size = static_cast<std::int64_t>(shard_.size());
  indices_.clear();
  if (b <= size) {
    for (int pos : sample_distinct(rng, static_cast<int>(size), static_cast<int>(b)))
      indices_.push_back(shard_[static_cast<std::size_t>(pos)]);
  } else {  // shard smaller than a batch: draw with replacement
    for (std::int64_t i = 0; i < b; ++i) indices_.push_back(shard_[rng.below(static_cast<std::uint64_t>(size))]);
  }
  thread_local Batch batch;
  setup_->train->gather(indices_, batch);
  return batch;
}

void Trainer::compute_gradient(std::int64_t step, std::vector<float>& grad) {
  if (!enabled()) {
    grad.clear();
    return;
  }
  step_ = step;
  const Batch& batch = sample_batch(step);
  grad.resize(params_.size());
  last_loss_ = setup_->model->loss_and_gradient(params_, batch, grad);
}

void Trainer::compute_gradient_at(std::span<const float> params, std::int64_t step, std::vector<float>& grad) {
  if (!enabled()) {
    grad.clear();
    return;
  }
  step_ = step;
  const Batch& batch = sample_batch(step);
  grad.resize(params_.size());
  last_loss_ = setup_->model->loss_and_gradient(params, batch, grad);
}

void Trainer::apply_gradient(std::span<const float> grad) {
  if (enabled()) optimizer_.apply(params_, grad, step_);
}

void Trainer::local_step(std::int64_t step) {
  thread_local std::vector<float> grad;
  compute_gradient(step, grad);
  apply_gradient(grad);
}

}  // namespace quorum
