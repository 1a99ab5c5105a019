#include "algorithms/sgd/BucketReducer.hpp"

#include <algorithm>
#include <deque>
#include <string>

namespace quorum {

struct BucketReducer::Shared {
  std::unique_ptr<Mutex> mutex;
  std::unique_ptr<ConditionVariable> changed;
  std::deque<std::size_t> queue;  // buckets ready and not yet taken by the agent
  std::size_t reduced = 0;        // buckets of the current step already summed
  std::int64_t step = 0;
  std::vector<float>* gradient = nullptr;
  bool stop = false;
};

BucketReducer::BucketReducer(RankContext& ctx, std::vector<GradientBucket> buckets)
    : ctx_(ctx), buckets_(std::move(buckets)), shared_(std::make_shared<Shared>()) {
  shared_->mutex = ctx.comm.make_mutex();
  shared_->changed = ctx.comm.make_condition_variable();
  agent_ = ctx.comm.spawn("bucket-allreduce", [this](Comm& comm) { agent_loop(comm); });
}

void BucketReducer::begin_step(std::int64_t step, std::vector<float>& gradient) {
  std::unique_lock<Mutex> lock(*shared_->mutex);
  shared_->step = step;
  shared_->gradient = &gradient;
  shared_->reduced = 0;
}

void BucketReducer::ready(std::size_t b) {
  {
    std::unique_lock<Mutex> lock(*shared_->mutex);
    shared_->queue.push_back(b);
  }
  shared_->changed->notify_all();
}

void BucketReducer::wait_all() {
  std::unique_lock<Mutex> lock(*shared_->mutex);
  ctx_.comm.wait_on(*shared_->changed, lock, [&] { return shared_->reduced == buckets_.size(); });
}

void BucketReducer::finish() {
  {
    std::unique_lock<Mutex> lock(*shared_->mutex);
    shared_->stop = true;
  }
  shared_->changed->notify_all();
  agent_->join();
}

void BucketReducer::agent_loop(Comm& comm) {
  const Group& world = ctx_.run.world;
  Shared& s = *shared_;
  std::vector<float> slice;
  for (;;) {
    std::size_t b;
    std::int64_t step;
    std::vector<float>* gradient;
    {
      std::unique_lock<Mutex> lock(*s.mutex);
      s.changed->wait(lock, [&] { return s.stop || !s.queue.empty(); });
      if (s.queue.empty()) return;
      b = s.queue.front();
      s.queue.pop_front();
      step = s.step;
      gradient = s.gradient;
    }
    // The main agent leaves the gradient alone until wait_all() returns, and wrote it before handing b over.
    const GradientBucket& bucket = buckets_[b];
    const auto first = gradient->begin() + static_cast<std::ptrdiff_t>(bucket.begin);
    const auto last = gradient->begin() + static_cast<std::ptrdiff_t>(bucket.end);
    slice.assign(first, last);
    const double t0 = comm.now();
    // The same allreduce as the non-overlapped step, on the bucket's share of the real values.
    allreduce_sum(comm, world, slice, bucket.logical_bytes, ctx_.run.allreduce);
    std::copy(slice.begin(), slice.end(), first);
    if (ctx_.observer.tracing())
      ctx_.observer.span({comm.rank(), comm.agent_id(), "comm",
                          "allreduce bucket " + std::to_string(b) + " (step " + std::to_string(step) + ")", t0,
                          comm.now()});
    {
      std::unique_lock<Mutex> lock(*s.mutex);
      ++s.reduced;
    }
    s.changed->notify_all();
  }
}

}  // namespace quorum
