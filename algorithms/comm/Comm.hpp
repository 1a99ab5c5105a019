#pragma once
// The interface every algorithm is written against, once, and that every backend implements: SimGrid (sim/) and
// MPI (validation/). Nothing in algorithms/ sees SimGrid or MPI.
//
// Semantics follow MPI's point-to-point rules: messages between a (source, destination, tag) triple are matched
// in the order they were sent; a send may not complete before the matching receive is posted (so correct code
// never relies on buffering); a tag marked any-source (see Tag.hpp) is always received with kAnySource.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "algorithms/comm/Group.hpp"
#include "algorithms/comm/Payload.hpp"
#include "algorithms/comm/Sync.hpp"
#include "algorithms/comm/Tag.hpp"

namespace quorum {

class RequestList;  // RequestList.hpp
class Schedule;     // Schedule.hpp

// A pending send or receive; backends derive from it.
class Request {
 public:
  virtual ~Request() = default;
};
using RequestPtr = std::shared_ptr<Request>;

// Synchronous collectives a backend does better natively (MPI_Allreduce, NCCL). Algorithms ask for them through
// SyncAllreduce, which falls back to the point-to-point implementations when a backend offers none.
class NativeCollectives {
 public:
  virtual ~NativeCollectives() = default;
  // Element-wise sum over the group's members, in place. Returns false if this backend cannot do it natively.
  // channel: the allreduce's channel (AllreduceOptions::channel); concurrent native allreduces of a rank's agents
  // use distinct channels, exactly as their point-to-point versions do, so a backend keys its communicators on it.
  virtual bool allreduce_sum(std::vector<float>& data, const Group& group, double logical_bytes,
                             Channel channel = Channel::SyncAllreduce) = 0;
};

// Told about every interval an agent spends blocked in wait, wait_any or wait_all (timelines, --trace).
class WaitObserver {
 public:
  virtual ~WaitObserver() = default;
  // agent 0 is the rank's main agent, 1, 2, ... the agents it spawned, in spawn order.
  virtual void blocked(int rank, int agent, double start_s, double end_s) = 0;
};

class Comm {
 public:
  virtual ~Comm() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Seconds since the start of the run (simulated or wall clock).
  virtual double now() const = 0;

  // --- point to point -----------------------------------------------------------------------------------------
  // logical_bytes: the simulated size (from the workload profile), independent of the real payload.
  virtual RequestPtr isend(int dst, Tag tag, Payload payload, double logical_bytes) = 0;
  // Fire and forget: a send nobody waits on (activations, notifications). It is delivered if and when the
  // destination posts a matching receive.
  virtual void post(int dst, Tag tag, Payload payload, double logical_bytes) = 0;
  // src is a rank, or kAnySource for tags made with tags::make_any_source.
  virtual RequestPtr irecv(int src, Tag tag) = 0;
  virtual bool test(const RequestPtr& request) = 0;
  // Withdraws a receive that has not matched yet (e.g. a listener at shutdown).
  virtual void cancel(const RequestPtr& request) = 0;
  // The received message of a completed receive (moved out; call once).
  virtual Message take(const RequestPtr& request) = 0;

  // Blocking calls. The time an agent spends in them is its wait time (blocked_seconds).
  void wait(const RequestPtr& request);
  // Index of a completed request (the lowest index among those already complete).
  std::size_t wait_any(std::span<const RequestPtr> requests);
  // The same over a list kept from one wait to the next, a few of its requests replaced between waits
  // (RequestList.hpp): the backend may take up only what changed since the last wait on it. Returns a position;
  // retired ones are never chosen.
  std::size_t wait_any(RequestList& requests);
  void wait_all(std::span<const RequestPtr> requests);
  Message recv(int src, Tag tag);
  void send(int dst, Tag tag, Payload payload, double logical_bytes);

  // --- chains of exchanges ---------------------------------------------------------------------------------------
  // A butterfly's pattern: in phase j this agent receives from and sends to partner(j) on tag(j) (the receive posted
  // first), and once both have completed hands the received message to received(j, message); phase j + 1's payload is
  // made after that. Blocks until the last phase is done; the time blocked is this agent's wait time, as for the
  // waits it stands for. A backend may progress the phases without running the agent between them (the simulator
  // does), so payload and received must not block. partner(j) and tag(j) depend on j alone: a backend may ask for
  // every phase's before the first phase (the simulator does).
  struct ExchangeChain {
    int phases = 0;
    std::function<int(int phase)> partner;
    std::function<Tag(int phase)> tag;
    std::function<Payload(int phase)> payload;
    std::function<double(int phase)> logical_bytes;
    std::function<void(int phase, Message& received)> received;
  };
  void exchange(const ExchangeChain& chain) { do_exchange(chain); }

  // --- schedules ---------------------------------------------------------------------------------------------------
  // Runs the schedule until none of its requests is left (Schedule::run): waits for any of them and runs what it
  // registered for it, in turn. A backend may run the continuations without running the agent between them (the
  // simulator does), so a continuation must not block.
  void run_schedule(Schedule& schedule) { do_run_schedule(schedule); }

  // --- time ---------------------------------------------------------------------------------------------------
  // One local step's computation: runs `math` (the proxy's real math, whose wall time never advances simulated
  // time) and advances this rank's clock by the step's modelled duration (workload profile plus stragglers, drawn
  // from the scenario's seeded streams). Returns the duration charged.
  double compute(std::int64_t step, const std::function<void()>& math);
  // The same step charged in parts (forward, then backward layer by layer): part i takes fractions[i] of the very
  // duration compute() would charge (straggler delay included, spread in proportion), the last part ending exactly
  // where compute() would end; after_part(i) runs on this agent once part i has been charged (the math is done by
  // then), e.g. to start a gradient bucket's allreduce. fractions are >= 0 and sum to 1 (empty: one part). Returns
  // the duration.
  double compute_in_parts(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                          const std::function<void(std::size_t)>& after_part);
  virtual void sleep_for(double seconds) = 0;

  // --- agents and shared state ---------------------------------------------------------------------------------
  // Starts a second agent on this rank; it gets its own Comm handle (same rank, its own wait accounting).
  virtual std::unique_ptr<Agent> spawn(const std::string& name, std::function<void(Comm&)> body) = 0;
  virtual std::unique_ptr<Mutex> make_mutex() = 0;
  virtual std::unique_ptr<ConditionVariable> make_condition_variable() = 0;
  // Waits on condition until pred holds, counted as this agent's wait time (e.g. for another agent's collective).
  template <typename Predicate>
  void wait_on(ConditionVariable& condition, std::unique_lock<Mutex>& lock, Predicate pred) {
    const double t0 = now();
    condition.wait(lock, pred);
    account_blocked(t0);
  }

  // --- accounting and optional native collectives ---------------------------------------------------------------
  double blocked_seconds() const { return blocked_seconds_; }
  double compute_seconds() const { return compute_seconds_; }
  virtual NativeCollectives* native() { return nullptr; }
  // Called right after this agent summed a received block into its vector (vec::add over `real_values` floats, maybe
  // none) standing for `logical_bytes` of the model. The simulator charges the platform's measured reduction rate;
  // the MPI backend, when messages carry their logical size, sums the rest of the block (the padding that stands for
  // the full model) for real, so the run pays what a full-size model would.
  virtual void charge_reduction(double logical_bytes, std::size_t real_values) = 0;

  // --- timelines --------------------------------------------------------------------------------------------------
  // Reports this agent's blocking intervals to observer (null: none), as agent 0 of its rank. Set by the backend's
  // driver on the main agent when tracing.
  void observe_waits(WaitObserver* observer);
  int agent_id() const { return agent_id_; }

 protected:
  // Backends call this in spawn() on the new agent's Comm: it reports to the same observer, as the rank's next agent.
  void observe_waits_as_new_agent(Comm& agent_comm) const;

  virtual void do_wait(const RequestPtr& request) = 0;
  virtual std::size_t do_wait_any(std::span<const RequestPtr> requests) = 0;
  // By default the whole list, as do_wait_any; the same choice either way.
  virtual std::size_t do_wait_any_list(const RequestList& requests);
  virtual void do_wait_all(std::span<const RequestPtr> requests);
  // Runs the chain phase by phase on this agent: irecv, isend, wait for the receive, then for the send.
  virtual void do_exchange(const ExchangeChain& chain);
  // The agent's loop: wait_any over the schedule's requests, then the continuation of the one chosen.
  virtual void do_run_schedule(Schedule& schedule);
  // Whether this agent's waits are reported to an observer (a backend that merges waits must not, then).
  bool observes_waits() const { return wait_observer_ != nullptr; }
  // One step's compute, in parts (compute() passes a single part {1} and no continuation): charges the step's
  // modelled duration, part i ending at the cumulative share of fractions[0..i], after_part(i) (may be empty) run
  // after part i. Returns the duration charged.
  virtual double do_compute(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                            const std::function<void(std::size_t)>& after_part) = 0;
  // Counts [since, now] as blocked (wait time and timelines): for a backend's blocking call that is not a wait.
  void account_blocked(double since);

 private:

  double blocked_seconds_ = 0.0;
  double compute_seconds_ = 0.0;
  WaitObserver* wait_observer_ = nullptr;
  int agent_id_ = 0;
  std::shared_ptr<std::atomic<int>> agents_spawned_;  // shared by the rank's agents, for agent numbers
};

}  // namespace quorum
