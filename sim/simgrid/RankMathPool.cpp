#include "sim/simgrid/RankMathPool.hpp"

#include <stdexcept>
#include <string>

namespace quorum {

RankMathPool::RankMathPool(int ranks, int threads)
    : pending_(static_cast<std::size_t>(ranks)), errors_(static_cast<std::size_t>(ranks)) {
  if (threads < 2) throw std::logic_error("RankMathPool: needs at least 2 threads, got " + std::to_string(threads));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

RankMathPool::~RankMathPool() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  work_ready_.notify_all();
  for (auto& w : workers_) w.join();
}

void RankMathPool::submit(int rank, std::function<void()> math) {
  TaskPtr& slot = pending_[static_cast<std::size_t>(rank)];
  if (slot) throw std::logic_error("RankMathPool: rank " + std::to_string(rank) + " computes with math still pending");
  slot = std::make_shared<Task>();
  slot->math = std::move(math);
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(slot);
  }
  work_ready_.notify_one();
}

RankMathPool::TaskPtr RankMathPool::claim_queued() {
  while (!queue_.empty()) {
    TaskPtr task = std::move(queue_.front());
    queue_.pop_front();
    if (task->state == Task::State::Queued) {
      task->state = Task::State::Running;
      return task;
    }
  }
  return nullptr;
}

void RankMathPool::run(const TaskPtr& task) {
  try {
    task->math();
  } catch (...) {
    task->error = std::current_exception();
  }
  task->math = nullptr;  // drops what the math captured before the rank moves on
  {
    std::lock_guard lock(mutex_);
    task->state = Task::State::Done;
  }
  task_done_.notify_all();
}

void RankMathPool::await_pending(int rank) noexcept {
  TaskPtr task = std::move(pending_[static_cast<std::size_t>(rank)]);
  pending_[static_cast<std::size_t>(rank)] = nullptr;
  std::unique_lock lock(mutex_);
  if (task->state == Task::State::Queued) {
    // Nobody has started it: run it here rather than wait (it stays in the queue; workers skip it).
    task->state = Task::State::Running;
    lock.unlock();
    run(task);
    lock.lock();
  }
  while (task->state != Task::State::Done) {
    // A worker runs it: help with the queue meanwhile, every queued task is awaited later anyway.
    if (TaskPtr other = claim_queued()) {
      lock.unlock();
      run(other);
      lock.lock();
    } else {
      task_done_.wait(lock);
    }
  }
  lock.unlock();
  if (task->error) errors_[static_cast<std::size_t>(rank)] = task->error;
}

void RankMathPool::worker_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (TaskPtr task = claim_queued()) {
      lock.unlock();
      run(task);
      lock.lock();
      continue;
    }
    if (closing_) return;
    work_ready_.wait(lock);
  }
}

}  // namespace quorum
