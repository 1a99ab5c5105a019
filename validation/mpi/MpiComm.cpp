#include "validation/mpi/MpiComm.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/optim/VectorOps.hpp"

namespace quorum::mpi {

namespace {

class MpiRequest final : public Request {
 public:
  MpiRequest(OperationPtr operation, std::shared_ptr<ProgressEngine> owner)
      : op(std::move(operation)), engine(std::move(owner)) {}
  ~MpiRequest() override {
    // A receive dropped while pending is withdrawn, as in the SimGrid backend.
    if (op->kind == Operation::Kind::Receive) {
      try {
        engine->cancel(op);
      } catch (...) {
      }
    }
  }
  OperationPtr op;
  std::shared_ptr<ProgressEngine> engine;
};

MpiRequest& as_mpi(const RequestPtr& r) {
  auto* m = dynamic_cast<MpiRequest*>(r.get());
  if (m == nullptr) throw std::logic_error("request does not belong to the MPI backend");
  return *m;
}

class ThreadMutex final : public Mutex {
 public:
  void lock() override { mutex_.lock(); }
  void unlock() override { mutex_.unlock(); }

 private:
  std::mutex mutex_;
};

class ThreadConditionVariable final : public ConditionVariable {
 public:
  explicit ThreadConditionVariable(std::shared_ptr<ProgressEngine> engine) : engine_(std::move(engine)) {}
  void wait(std::unique_lock<Mutex>& lock) override {
    engine_->kick();  // what this agent posted keeps moving while it waits for another agent
    cv_.wait(lock);
  }
  void notify_one() override { cv_.notify_one(); }
  void notify_all() override { cv_.notify_all(); }

 private:
  std::shared_ptr<ProgressEngine> engine_;
  std::condition_variable_any cv_;
};

class ThreadAgent final : public Agent {
 public:
  explicit ThreadAgent(std::thread thread) : thread_(std::move(thread)) {}
  ~ThreadAgent() override {
    // Dropped without join(): the agent keeps running, as a SimGrid actor does; the driver checks that every agent
    // has finished before the rank's run ends (RankRuntime::live_agents).
    if (thread_.joinable()) thread_.detach();
  }
  void join() override {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};

}  // namespace

MpiComm::MpiComm(RankRuntime& runtime, std::string agent) : runtime_(runtime), agent_(std::move(agent)) {}

void MpiComm::check_peer(int peer, const char* what) const {
  if (peer < 0 || peer >= size())
    throw std::logic_error(std::string(what) + ": rank " + std::to_string(peer) + " out of range");
}

double MpiComm::wire_bytes(double logical_bytes) const {
  return runtime_.settings().pad_to_logical() ? logical_bytes : 0.0;
}

RequestPtr MpiComm::isend(int dst, Tag tag, Payload payload, double logical_bytes) {
  check_peer(dst, "isend");
  auto op = runtime_.engine()->send(dst, tag, std::move(payload), wire_bytes(logical_bytes),
                                    runtime_.send_hold_s(dst, logical_bytes));
  return std::make_shared<MpiRequest>(std::move(op), runtime_.engine());
}

void MpiComm::post(int dst, Tag tag, Payload payload, double logical_bytes) {
  check_peer(dst, "post");
  // The engine keeps the operation until MPI completes it; nobody waits for it.
  runtime_.engine()->send(dst, tag, std::move(payload), wire_bytes(logical_bytes),
                          runtime_.send_hold_s(dst, logical_bytes));
}

RequestPtr MpiComm::irecv(int src, Tag tag) {
  if (tags::is_any_source(tag) != (src == kAnySource))
    throw std::logic_error("irecv: tag " + std::to_string(tag) +
                           (src == kAnySource ? " is not an any-source tag but was received from kAnySource"
                                              : " is an any-source tag; receive it with kAnySource"));
  if (src != kAnySource) check_peer(src, "irecv");
  auto op = runtime_.engine()->receive(src == kAnySource ? MPI_ANY_SOURCE : src, tag);
  return std::make_shared<MpiRequest>(std::move(op), runtime_.engine());
}

RequestPtr MpiComm::adopt(OperationPtr operation) {
  return std::make_shared<MpiRequest>(std::move(operation), runtime_.engine());
}

bool MpiComm::test(const RequestPtr& request) { return runtime_.engine()->test(as_mpi(request).op); }

void MpiComm::cancel(const RequestPtr& request) { runtime_.engine()->cancel(as_mpi(request).op); }

Message MpiComm::take(const RequestPtr& request) { return runtime_.engine()->take(as_mpi(request).op); }

void MpiComm::do_wait(const RequestPtr& request) {
  RankRuntime::WaitScope waiting(runtime_, agent_ == "main");
  runtime_.engine()->wait(as_mpi(request).op);
}

std::size_t MpiComm::do_wait_any(std::span<const RequestPtr> requests) {
  std::vector<OperationPtr> ops;
  ops.reserve(requests.size());
  for (const auto& r : requests) ops.push_back(as_mpi(r).op);
  RankRuntime::WaitScope waiting(runtime_, agent_ == "main");
  return runtime_.engine()->wait_any(ops);
}

double MpiComm::do_compute(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                           const std::function<void(std::size_t)>& after_part) {
  return runtime_.compute(step, math, fractions, after_part);
}

void MpiComm::sleep_for(double seconds) { runtime_.sleep_until(now() + seconds); }

std::unique_ptr<Agent> MpiComm::spawn(const std::string& name, std::function<void(Comm&)> body) {
  RankRuntime* runtime = &runtime_;
  runtime_.agent_started();
  // The agent's Comm is made here, so that it gets its agent number (timelines) in spawn order.
  auto agent_comm = std::make_shared<MpiComm>(runtime_, name);
  observe_waits_as_new_agent(*agent_comm);
  std::thread thread([runtime, name, agent_comm, body = std::move(body)] {
    try {
      body(*agent_comm);
    } catch (const std::exception& e) {
      runtime->fail(name, e.what());
    }
    runtime->agent_finished();
  });
  return std::make_unique<ThreadAgent>(std::move(thread));
}

std::unique_ptr<Mutex> MpiComm::make_mutex() { return std::make_unique<ThreadMutex>(); }

std::unique_ptr<ConditionVariable> MpiComm::make_condition_variable() {
  return std::make_unique<ThreadConditionVariable>(runtime_.engine());
}

void MpiComm::charge_reduction(double logical_bytes, std::size_t real_values) {
  if (!runtime_.settings().pad_to_logical()) return;
  const double padding_values = logical_bytes / sizeof(float) - static_cast<double>(real_values);
  if (padding_values < 1) return;
  const auto n = static_cast<std::size_t>(padding_values);
  if (padding_sum_.size() < n) {
    padding_sum_.resize(n, 0.0f);
    padding_received_.resize(n, 0.0f);
  }
  vec::add(std::span<float>(padding_sum_).first(n), std::span<const float>(padding_received_).first(n));
}

NativeCollectives* MpiComm::native() { return runtime_.native() ? this : nullptr; }

bool MpiComm::allreduce_sum(std::vector<float>& data, const Group& group, double logical_bytes, Channel channel) {
  NativeAllreduce* impl = runtime_.native();
  if (impl == nullptr) return false;
  // This rank's slow link holds the library's allreduce back; it arrives that much later (SlowLinkCost.hpp).
  if (const double hold = runtime_.native_allreduce_hold_s(group.size(), logical_bytes); hold > 0) {
    RankRuntime::WaitScope waiting(runtime_, agent_ == "main");
    const double t0 = now();
    runtime_.sleep_until(t0 + hold);
    account_blocked(t0);
  }
  impl->allreduce_sum(*this, data, group, logical_bytes, channel);
  return true;
}

}  // namespace quorum::mpi
