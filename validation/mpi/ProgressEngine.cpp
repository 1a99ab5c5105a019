#include "validation/mpi/ProgressEngine.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "validation/mpi/MpiError.hpp"

namespace quorum::mpi {

namespace {

constexpr std::size_t kHeaderFixedBytes = offsetof(WireHeader, inline_bytes);

// Spin: posts do not wake the progress thread (the posting agent usually waits next and drives MPI itself), and
// agents that turn to something else kick it; it also looks on its own this often, so that nothing pending is ever
// left without progress.
constexpr std::chrono::milliseconds kSpinModeCheck{2};
// Spin: how long a waiting agent drives MPI before it sleeps (spin, then block, as MPI libraries wait): long enough
// for a round trip of up to a few hundred KiB on shared memory or InfiniBand, short enough that a rank's other agents
// are not starved of its core for longer.
constexpr std::chrono::microseconds kSpinWindow{100};

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

struct Block {
  void* address;
  std::size_t bytes;
};

int block_count(const Block& b) {
  if (b.bytes > static_cast<std::size_t>(INT_MAX))
    throw MpiError("a message block of " + std::to_string(b.bytes) + " bytes exceeds MPI's 2 GiB count limit");
  return static_cast<int>(b.bytes);
}

bool data_pending(const Operation& op) {
  return std::any_of(op.data_requests.begin(), op.data_requests.end(),
                     [](MPI_Request r) { return r != MPI_REQUEST_NULL; });
}

void clear_requests(Operation& op) {
  op.header_request = op.collective_request = MPI_REQUEST_NULL;
  op.data_requests.fill(MPI_REQUEST_NULL);
}

// Sends still unmatched at shutdown: MPI may read their buffers until the process ends, so they are never freed.
std::mutex leaked_mutex;
std::vector<OperationPtr>& leaked_sends() {
  static auto* v = new std::vector<OperationPtr>();  // intentionally never destroyed
  return *v;
}

}  // namespace

ProgressEngine::ProgressEngine(MPI_Comm messages, MPI_Comm data, int tag_ub, double poll_interval_s,
                               WaitMode wait_mode)
    : messages_(messages), data_(data), tag_ub_(tag_ub), poll_interval_s_(poll_interval_s), wait_mode_(wait_mode) {
  thread_ = std::thread([this] { loop(); });
}

ProgressEngine::~ProgressEngine() {
  try {
    shutdown();
  } catch (...) {
    // Destructors must not throw; shutdown() already reported what it could.
  }
}

void ProgressEngine::add_locked(OperationPtr op) {
  active_.push_back(std::move(op));
  new_work_ = true;
  // Spin: the agent that posts usually waits next and drives MPI itself; waking the progress thread for every
  // message would cost a thread switch per message. It is kicked when the agent turns to something else.
  if (wait_mode_ == WaitMode::Sleep) work_.notify_one();
}

std::shared_ptr<std::vector<std::byte>> ProgressEngine::zeros_locked(std::size_t bytes) {
  if (!zeros_ || zeros_->size() < bytes) zeros_ = std::make_shared<std::vector<std::byte>>(bytes);
  return zeros_;
}

std::shared_ptr<std::byte[]> ProgressEngine::scratch_locked(std::size_t bytes) {
  if (!scratch_ || scratch_size_ < bytes) {
    scratch_ = std::shared_ptr<std::byte[]>(new std::byte[bytes]);
    scratch_size_ = bytes;
  }
  return scratch_;
}

OperationPtr ProgressEngine::send(int dst, std::int32_t tag, Payload payload, double pad_to_bytes, double hold_s) {
  auto op = std::make_shared<Operation>(Operation::Kind::Send);
  op->peer = dst;
  op->tag = tag;
  op->message.tag = tag;
  op->message.payload = std::move(payload);
  const auto& p = op->message.payload;
  const std::size_t payload_bytes = p.values.size() * sizeof(float) + p.ints.size() * sizeof(std::int64_t);
  std::size_t padding = 0;
  if (pad_to_bytes > static_cast<double>(payload_bytes + kHeaderFixedBytes))
    padding = static_cast<std::size_t>(std::llround(pad_to_bytes)) - payload_bytes;
  WireHeader& h = op->header;
  h.values = static_cast<std::int64_t>(p.values.size());
  h.ints = static_cast<std::int64_t>(p.ints.size());
  h.padding = static_cast<std::int64_t>(padding);

  std::lock_guard lock(mutex_);
  if (stopping_ || stopped_) throw std::logic_error("send after the rank's run ended");
  // A held send waits behind the held sends before it to the same destination (the slow link is one queue), and
  // so does an unheld one while any is held: messages to a destination leave in the order they were sent.
  const auto now = std::chrono::steady_clock::now();
  auto& queue_end = held_until_[dst];
  if (hold_s > 0 || queue_end > now) {
    const auto release = std::max(now, queue_end) +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(std::max(hold_s, 0.0)));
    queue_end = release;
    Operation* held = op.get();
    op->poll = [this, held, release] {
      if (std::chrono::steady_clock::now() < release) return false;
      issue_send_locked(*held);
      return true;
    };
  } else {
    issue_send_locked(*op);
  }
  ++stats_.sends;
  add_locked(op);
  return op;
}

void ProgressEngine::issue_send_locked(Operation& op) {
  WireHeader& h = op.header;
  const auto& p = op.message.payload;
  const std::size_t value_bytes = p.values.size() * sizeof(float);
  const std::size_t int_bytes = p.ints.size() * sizeof(std::int64_t);
  const std::size_t payload_bytes = value_bytes + int_bytes;
  const auto padding = static_cast<std::size_t>(h.padding);
  // Inline, the padding is the header's own zeros after the payload.
  const bool inline_payload = payload_bytes + padding <= WireHeader::kInlineBytes;
  std::size_t header_bytes = kHeaderFixedBytes;
  if (inline_payload) {
    if (value_bytes) std::memcpy(h.inline_bytes, p.values.data(), value_bytes);
    if (int_bytes) std::memcpy(h.inline_bytes + value_bytes, p.ints.data(), int_bytes);
    header_bytes += payload_bytes + padding;
    h.data_tag = -1;
  } else {
    h.data_tag = next_data_tag_;
    next_data_tag_ = next_data_tag_ >= tag_ub_ ? 0 : next_data_tag_ + 1;
  }
  check(MPI_Isend(&h, static_cast<int>(header_bytes), MPI_BYTE, op.peer, op.tag, messages_, &op.header_request),
        "MPI_Isend (message header)");
  stats_.bytes_sent += static_cast<double>(header_bytes);
  if (!inline_payload) {
    std::shared_ptr<std::vector<std::byte>> zeros;
    if (padding) zeros = zeros_locked(padding);
    const Block parts[3] = {{op.message.payload.values.data(), value_bytes},
                            {op.message.payload.ints.data(), int_bytes},
                            {zeros ? zeros->data() : nullptr, padding}};
    for (std::size_t k = 0; k < 3; ++k) {
      if (parts[k].bytes == 0) continue;
      check(MPI_Isend(parts[k].address, block_count(parts[k]), MPI_BYTE, op.peer, h.data_tag, data_,
                      &op.data_requests[k]),
            "MPI_Isend (message data)");
    }
    op.keep_alive = zeros;
    ++stats_.data_messages;
    stats_.bytes_sent += static_cast<double>(payload_bytes + padding);
  }
}

OperationPtr ProgressEngine::receive(int src, std::int32_t tag) {
  auto op = std::make_shared<Operation>(Operation::Kind::Receive);
  op->peer = src == MPI_ANY_SOURCE ? -1 : src;
  op->tag = tag;
  std::lock_guard lock(mutex_);
  if (stopping_ || stopped_) throw std::logic_error("receive after the rank's run ended");
  check(MPI_Irecv(&op->header, static_cast<int>(sizeof(WireHeader)), MPI_BYTE, src, tag, messages_,
                  &op->header_request),
        "MPI_Irecv (message header)");
  ++stats_.receives;
  add_locked(op);
  return op;
}

OperationPtr ProgressEngine::track(MPI_Request request, bool busy) {
  auto op = std::make_shared<Operation>(Operation::Kind::Collective);
  op->collective_request = request;
  op->busy = busy;
  std::lock_guard lock(mutex_);
  if (stopping_ || stopped_) throw std::logic_error("collective after the rank's run ended");
  if (busy) ++busy_;
  add_locked(op);
  return op;
}

OperationPtr ProgressEngine::track(std::function<bool()> poll) {
  auto op = std::make_shared<Operation>(Operation::Kind::Custom);
  op->poll = std::move(poll);
  std::lock_guard lock(mutex_);
  if (stopping_ || stopped_) throw std::logic_error("operation after the rank's run ended");
  add_locked(op);
  return op;
}

void ProgressEngine::start_data_receive(Operation& op, int source) {
  const WireHeader& h = op.header;
  auto& p = op.message.payload;
  p.values.resize(static_cast<std::size_t>(h.values));
  p.ints.resize(static_cast<std::size_t>(h.ints));
  const auto padding = static_cast<std::size_t>(h.padding);
  std::shared_ptr<std::byte[]> scratch;
  if (padding) scratch = scratch_locked(padding);
  // The same parts in the same order as the sender's (ProgressEngine.hpp); the padding lands in a scratch buffer.
  const Block parts[3] = {{p.values.data(), p.values.size() * sizeof(float)},
                          {p.ints.data(), p.ints.size() * sizeof(std::int64_t)},
                          {scratch.get(), padding}};
  for (std::size_t k = 0; k < 3; ++k) {
    if (parts[k].bytes == 0) continue;
    check(MPI_Irecv(parts[k].address, block_count(parts[k]), MPI_BYTE, source, h.data_tag, data_,
                    &op.data_requests[k]),
          "MPI_Irecv (message data)");
  }
  op.keep_alive = scratch;
}

bool ProgressEngine::progress_locked() {
  bool progressed = false;
  requests_.clear();
  owners_.clear();
  for (const auto& op : active_) {
    if (op->header_request != MPI_REQUEST_NULL) {
      requests_.push_back(op->header_request);
      owners_.push_back({op.get(), 0, 0});
    }
    for (std::size_t k = 0; k < op->data_requests.size(); ++k)
      if (op->data_requests[k] != MPI_REQUEST_NULL) {
        requests_.push_back(op->data_requests[k]);
        owners_.push_back({op.get(), 1, static_cast<int>(k)});
      }
    if (op->collective_request != MPI_REQUEST_NULL) {
      requests_.push_back(op->collective_request);
      owners_.push_back({op.get(), 2, 0});
    }
    if (op->poll) {  // a Custom operation, or a held send (issued when its time comes)
      try {
        if (op->poll()) {
          op->poll = nullptr;
          progressed = true;
        }
      } catch (const std::exception& e) {
        op->error = e.what();
        op->poll = nullptr;
        progressed = true;
      }
    }
  }
  if (!requests_.empty()) {
    const int n = static_cast<int>(requests_.size());
    indices_.resize(requests_.size());
    statuses_.resize(requests_.size());
    int count = 0;
    const int rc = MPI_Testsome(n, requests_.data(), &count, indices_.data(), statuses_.data());
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
      // The library could not even test: fail every operation rather than hang.
      for (auto& owner : owners_) {
        owner.op->error = "MPI_Testsome failed: " + error_string(rc);
        clear_requests(*owner.op);
      }
      count = 0;
      progressed = true;
    }
    if (count == MPI_UNDEFINED) count = 0;
    for (int k = 0; k < count; ++k) {
      const auto [op, which, part] = owners_[static_cast<std::size_t>(indices_[static_cast<std::size_t>(k)])];
      MPI_Status& st = statuses_[static_cast<std::size_t>(k)];
      progressed = true;
      if (rc == MPI_ERR_IN_STATUS && st.MPI_ERROR != MPI_SUCCESS && st.MPI_ERROR != MPI_ERR_PENDING) {
        op->error = "MPI reported: " + error_string(st.MPI_ERROR);
        clear_requests(*op);
        continue;
      }
      if (which == 0) {
        op->header_request = MPI_REQUEST_NULL;
        if (op->kind != Operation::Kind::Receive) continue;
        int cancelled = 0;
        MPI_Test_cancelled(&st, &cancelled);
        if (cancelled) continue;
        op->peer = st.MPI_SOURCE;
        op->message.source = st.MPI_SOURCE;
        op->message.tag = op->tag;
        if (op->header.data_tag < 0) {
          auto& p = op->message.payload;
          p.values.resize(static_cast<std::size_t>(op->header.values));
          p.ints.resize(static_cast<std::size_t>(op->header.ints));
          const std::size_t value_bytes = p.values.size() * sizeof(float);
          if (value_bytes) std::memcpy(p.values.data(), op->header.inline_bytes, value_bytes);
          if (!p.ints.empty())
            std::memcpy(p.ints.data(), op->header.inline_bytes + value_bytes, p.ints.size() * sizeof(std::int64_t));
        } else {
          try {
            start_data_receive(*op, st.MPI_SOURCE);
          } catch (const std::exception& e) {
            op->error = e.what();
          }
        }
      } else if (which == 1) {
        op->data_requests[static_cast<std::size_t>(part)] = MPI_REQUEST_NULL;
      } else {
        op->collective_request = MPI_REQUEST_NULL;
      }
    }
  }
  for (const auto& op : active_) {
    const bool pending = op->header_request != MPI_REQUEST_NULL || data_pending(*op) ||
                         op->collective_request != MPI_REQUEST_NULL || op->poll;
    if (!pending) finish_locked(*op);
  }
  std::erase_if(active_, [](const OperationPtr& op) { return op->retired; });
  return progressed;
}

void ProgressEngine::finish_locked(Operation& op) {
  op.retired = true;
  op.complete = true;
  if (op.busy) --busy_;
}

void ProgressEngine::kick() {
  std::lock_guard lock(mutex_);
  if (active_.empty() || driven_) return;
  kicked_ = true;
  work_.notify_one();
}

bool ProgressEngine::data_in_flight_locked() const {
  return std::any_of(active_.begin(), active_.end(), [](const OperationPtr& op) { return data_pending(*op); });
}

void ProgressEngine::loop() {
  // Pauses of a few microseconds must last a few microseconds, not the default 50 us of timer slack.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  std::unique_lock lock(mutex_);
  double pause = 0;
  while (!stopping_) {
    if (active_.empty() || driven_) {
      // Nothing to do, or a waiting agent drives MPI itself (Spin): stand aside until it is done. Spin: posts do not
      // wake this thread (see add_locked), so look again every kSpinModeCheck.
      if (wait_mode_ == WaitMode::Spin)
        work_.wait_for(lock, kSpinModeCheck, [this] { return stopping_ || kicked_; });
      else
        work_.wait(lock, [this] { return stopping_ || (!active_.empty() && !driven_); });
      kicked_ = false;
      pause = 0;
      continue;
    }
    if (progress_locked()) {
      completed_.notify_all();
      pause = 0;
      // Let agents that were woken, or that want to post, take the lock before the next round.
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
      continue;
    }
    // A collective whose members have all arrived, or a data message under way, advances only while MPI is polled,
    // and no request completes before its last round or fragment: poll again at once. (A timed wait is no short
    // pause: the kernel's timer slack makes even 1 us last about 50 us.)
    if (busy_ > 0 || data_in_flight_locked()) {
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
      continue;
    }
    pause = pause == 0 ? 1e-6 : std::min(pause * 2, poll_interval_s_);
    new_work_ = false;
    work_.wait_for(lock, std::chrono::duration<double>(pause),
                   [this] { return stopping_ || new_work_ || driven_ || kicked_; });
    kicked_ = false;
    if (new_work_) pause = 0;
  }
}

template <typename Done>
void ProgressEngine::block_until(std::unique_lock<std::mutex>& lock, Done done) {
  bool may_drive = wait_mode_ == WaitMode::Spin;
  while (!done()) {
    if (may_drive && !driven_ && !stopping_) {
      // This agent drives MPI, as MPI_Wait would, for at most kSpinWindow; agents it completes are woken. A longer
      // wait (a straggler, a large transfer) goes to sleep: a rank's other agents need the core then.
      may_drive = false;
      driven_ = true;
      const auto until = std::chrono::steady_clock::now() + kSpinWindow;
      while (!done() && !stopping_ && std::chrono::steady_clock::now() < until) {
        if (progress_locked()) completed_.notify_all();
        // Open the lock for agents that post meanwhile.
        lock.unlock();
        relax();
        lock.lock();
      }
      driven_ = false;
      // Hand over: another waiting agent may drive, else the progress thread resumes polling at once. With nothing
      // pending there is nothing to resume: waking it anyway put a futex wake and a thread to schedule on the return
      // path of every wait.
      if (!active_.empty()) {
        kicked_ = true;
        work_.notify_one();
      }
      completed_.notify_all();
      continue;
    }
    completed_.wait(lock);
  }
}

void ProgressEngine::throw_if_failed(const Operation& op) const {
  if (!op.error.empty()) throw MpiError(op.error);
}

bool ProgressEngine::test(const OperationPtr& op) {
  std::lock_guard lock(mutex_);
  throw_if_failed(*op);
  return op->complete;
}

void ProgressEngine::wait(const OperationPtr& op) {
  std::unique_lock lock(mutex_);
  block_until(lock, [&] { return op->complete || !op->error.empty() || stopped_; });
  throw_if_failed(*op);
  if (!op->complete) throw std::logic_error("wait on an operation after the rank's run ended");
}

std::size_t ProgressEngine::wait_any(std::span<const OperationPtr> ops) {
  if (ops.empty()) throw std::logic_error("wait_any on no requests");
  std::unique_lock lock(mutex_);
  block_until(lock, [&] {
    return stopped_ || std::any_of(ops.begin(), ops.end(),
                                   [](const OperationPtr& op) { return op->complete || !op->error.empty(); });
  });
  for (std::size_t i = 0; i < ops.size(); ++i) {
    throw_if_failed(*ops[i]);
    if (ops[i]->complete) return i;
  }
  throw std::logic_error("wait_any after the rank's run ended");
}

void ProgressEngine::cancel(const OperationPtr& op) {
  std::lock_guard lock(mutex_);
  if (op->kind != Operation::Kind::Receive) throw std::logic_error("cancel: only a receive can be withdrawn");
  if (op->complete) return;
  op->complete = true;
  op->cancelled = true;
  // The header receive is withdrawn; if it matched meanwhile, the message is received and dropped. Either way the
  // progress thread completes the MPI request.
  if (op->header_request != MPI_REQUEST_NULL) MPI_Cancel(&op->header_request);
  new_work_ = true;
  work_.notify_one();
  completed_.notify_all();
}

Message ProgressEngine::take(const OperationPtr& op) {
  std::lock_guard lock(mutex_);
  throw_if_failed(*op);
  if (op->kind != Operation::Kind::Receive || !op->complete || op->cancelled || op->taken)
    throw std::logic_error("take: not a completed receive (or already taken)");
  op->taken = true;
  return std::move(op->message);
}

void ProgressEngine::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    for (const auto& op : active_)
      if (op->kind == Operation::Kind::Receive && !op->complete) {
        ++stats_.leftover_receives;
        op->complete = op->cancelled = true;
        if (op->header_request != MPI_REQUEST_NULL) MPI_Cancel(&op->header_request);
      }
    // Sends still held for a slow link leave now: nobody will drive them once the engine stops.
    for (const auto& op : active_)
      if (op->kind == Operation::Kind::Send && op->poll) {
        op->poll = nullptr;
        issue_send_locked(*op);
      }
    stopping_ = true;
    work_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  std::unique_lock lock(mutex_);
  // Let the cancelled receives (and any data still arriving for them) complete, briefly.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  auto receives_pending = [this] {
    return std::any_of(active_.begin(), active_.end(),
                       [](const OperationPtr& op) { return op->kind != Operation::Kind::Send; });
  };
  while (receives_pending() && std::chrono::steady_clock::now() < deadline) {
    if (!progress_locked()) {
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      lock.lock();
    }
  }
  for (const auto& op : active_) {
    if (op->kind == Operation::Kind::Send) ++stats_.leftover_sends;
    for (MPI_Request* r : {&op->header_request, &op->collective_request, &op->data_requests[0],
                           &op->data_requests[1], &op->data_requests[2]})
      if (*r != MPI_REQUEST_NULL) MPI_Request_free(r);
    op->complete = true;
    std::lock_guard leak(leaked_mutex);
    leaked_sends().push_back(op);
  }
  active_.clear();
  stopped_ = true;
  completed_.notify_all();
}

EngineStats ProgressEngine::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace quorum::mpi
