#pragma once
// A small event loop over pending requests: register requests with what to do when each completes, then run
// until none is left. Continuations may register further requests. This is how the collectives express their
// communication DAGs (in the spirit of fflib's schedules) while blocking in one place only.
#include <functional>
#include <span>
#include <vector>

#include "algorithms/comm/Comm.hpp"

namespace quorum {

class Schedule {
 public:
  using Continuation = std::function<void(const RequestPtr&)>;

  explicit Schedule(Comm& comm) : comm_(comm) {}

  // Runs then(request) once the request completes (then may be empty). Continuations must not block: the backend
  // may run them without the agent (Comm::run_schedule).
  void on(RequestPtr request, Continuation then = {});
  // Blocks until every registered request (including ones registered by continuations) has completed.
  void run() { comm_.run_schedule(*this); }
  bool empty() const { return pending_.empty(); }

  // For the backends' Comm::do_run_schedule: the requests not completed yet, in the order registered (valid until
  // the next on() or complete()), and the completion of pending()[i]: it leaves the schedule, then its continuation
  // runs.
  std::span<const RequestPtr> pending() const { return pending_; }
  void complete(std::size_t i);

 private:
  Comm& comm_;
  std::vector<RequestPtr> pending_;
  std::vector<Continuation> continuations_;
};

}  // namespace quorum
