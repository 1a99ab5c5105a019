#include "kernels/Trainer.hpp"

#include "kernels/random/SeedStream.hpp"

namespace quorum {

Trainer::Trainer(std::shared_ptr<const MathSetup> setup, int rank, int world_size)
    : setup_(std::move(setup)),
      rank_(rank),
      optimizer_(setup_->config.sgd, setup_->model ? setup_->model->num_params() : 0) {
  if (!setup_->enabled()) return;
  params_.resize(setup_->model->num_params());
  setup_->model->init(params_, setup_->seed);
  const auto n = static_cast<std::int64_t>(setup_->permutation.size());
  shard_begin_ = n * rank / world_size;
  shard_size_ = n * (rank + 1) / world_size - shard_begin_;
  if (shard_size_ == 0) {  // more ranks than samples: fall back to the whole set
    shard_begin_ = 0;
    shard_size_ = n;
  }
}

void Trainer::sample_batch(std::int64_t step) {
  Rng rng(setup_->seed, Stream::Batch, static_cast<std::uint64_t>(rank_), static_cast<std::uint64_t>(step));
  const std::int64_t b = setup_->config.batch;
  indices_.clear();
  if (b <= shard_size_) {
    for (int pos : sample_distinct(rng, static_cast<int>(shard_size_), static_cast<int>(b)))
      indices_.push_back(setup_->permutation[static_cast<std::size_t>(shard_begin_ + pos)]);
  } else {  // shard smaller than a batch: draw with replacement
    for (std::int64_t i = 0; i < b; ++i)
      indices_.push_back(setup_->permutation[static_cast<std::size_t>(
          shard_begin_ + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(shard_size_))))]);
  }
  setup_->train->gather(indices_, batch_);
}

void Trainer::compute_gradient(std::int64_t step, std::vector<float>& grad) {
  if (!enabled()) {
    grad.clear();
    return;
  }
  sample_batch(step);
  grad.resize(params_.size());
  last_loss_ = setup_->model->loss_and_gradient(params_, batch_, grad);
}

void Trainer::compute_gradient_at(std::span<const float> params, std::int64_t step, std::vector<float>& grad) {
  if (!enabled()) {
    grad.clear();
    return;
  }
  sample_batch(step);
  grad.resize(params_.size());
  last_loss_ = setup_->model->loss_and_gradient(params, batch_, grad);
}

void Trainer::apply_gradient(std::span<const float> grad) {
  if (enabled()) optimizer_.apply(params_, grad);
}

void Trainer::local_step(std::int64_t step) {
  compute_gradient(step, grad_);
  apply_gradient(grad_);
}

}  // namespace quorum
