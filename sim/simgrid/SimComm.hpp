#pragma once
// The SimGrid backend of Comm: each rank is an actor on its host, progress agents are further actors on the same
// host, messages are SimGrid communications whose simulated size is the logical size, and compute() sleeps for the
// modelled step duration.
#include "algorithms/comm/Comm.hpp"
#include "sim/simgrid/PostedSends.hpp"
#include "sim/simgrid/SimWorld.hpp"
#include "sim/simgrid/WaitSet.hpp"

namespace quorum {

// It is also its own NativeCollectives (the platform's measured MPI_Allreduce, when the platform has one).
class SimComm final : public Comm, private NativeCollectives {
 public:
  SimComm(SimWorld& world, int rank) : world_(world), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  double now() const override;

  RequestPtr isend(int dst, Tag tag, Payload payload, double logical_bytes) override;
  void post(int dst, Tag tag, Payload payload, double logical_bytes) override;
  RequestPtr irecv(int src, Tag tag) override;
  bool test(const RequestPtr& request) override;
  void cancel(const RequestPtr& request) override;
  Message take(const RequestPtr& request) override;

  void sleep_for(double seconds) override;
  std::unique_ptr<Agent> spawn(const std::string& name, std::function<void(Comm&)> body) override;
  std::unique_ptr<Mutex> make_mutex() override;
  std::unique_ptr<ConditionVariable> make_condition_variable() override;
  NativeCollectives* native() override;
  // Called once the actor's work is done: posted messages still pending are delivered from a daemon (PostedSends).
  void deliver_pending_posts();
  void charge_reduction(double logical_bytes, std::size_t real_values) override;
  // wait_any over at least this many requests learns which ended from CommCompletions instead of SimGrid's
  // wait_any, which costs O(n) per call (a server listening to every worker pays it once per message), and keeps
  // them registered between calls (WaitSet). Both give the same choice; tests set it to 2 or to SIZE_MAX to compare
  // them. Process-wide; 16 by default. A RequestList is watched from min(this, 2) requests, unless this is SIZE_MAX
  // (the set takes up only a list's changes).
  static void set_watched_wait_any_from(std::size_t requests);

  // Awaits this rank's pending math (RankMathPool): called on every return from SimGrid to this actor's code.
  void resumed() const noexcept {
    if (const auto& pool = world_.math_pool()) pool->await(rank_);
  }

 protected:
  void do_wait(const RequestPtr& request) override;
  std::size_t do_wait_any(std::span<const RequestPtr> requests) override;
  // Through the actor's WaitSet, taking up only the list's changes when the set was last synced with this list, at
  // its last wait: a parameter server's wait costs the one receive it replaced, not one read per worker.
  std::size_t do_wait_any_list(const RequestList& requests) override;
  // In maestro, phase after phase, where the chain's transfers are DirectMessages' and nothing would block (no
  // reduction charge, no wait observer); else Comm's loop. Why: at 4,096 ranks a butterfly's exchanges are 12 of the
  // 15 times an eager-SGD agent is resumed in a step (docs/performance-log.md).
  void do_exchange(const ExchangeChain& chain) override;
  // The same for a Schedule's continuations (the phase-fidelity ring's, which Prague's groups and Allreduce-SGD run)
  // while its requests are DirectMessages' and fewer than a wait set takes, and nothing would block; else Comm's loop.
  // Sends at one instant may then come in another order than the agent's loop would give them (docs/performance-log.md,
  // "A `Schedule`'s continuations run in maestro").
  void do_run_schedule(Schedule& schedule) override;
  double do_compute(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                    const std::function<void(std::size_t)>& after_part) override;

 private:
  // The platform's measured MPI_Allreduce, for SyncAllreduce; its blocking counts as this agent's wait.
  bool allreduce_sum(std::vector<float>& data, const Group& group, double logical_bytes, Channel channel) override;

  // A chain of exchanges progressed in maestro (do_exchange).
  class KernelExchange;
  // A Schedule progressed in maestro (do_run_schedule).
  class KernelSchedule;
  // Waits for either, once it has run here as far as it could.
  template <typename Kernel>
  void await_kernel(Kernel& kernel);

  // Spends `seconds` of calibrated CPU work, measured with `core_share` of a core per rank: a sleep when every rank
  // has a core of its own, else seconds x core_share core-seconds on the node's shared cores.
  void work(double seconds, double core_share = 1);
  void check_peer(int peer, const char* what) const;
  // What irecv checks of a receive's source and tag.
  void check_receive(int src, Tag tag) const;
  // A direct message's receive and send (goes_direct(tag)), their ends returned: a request holds one, and a chain
  // progressed in maestro holds its phase's two itself, without requests (KernelExchange).
  std::shared_ptr<DirectMessages::End> direct_irecv(int src, Tag tag);
  std::shared_ptr<DirectMessages::End> direct_isend(int dst, Tag tag, Payload payload, double logical_bytes);
  std::size_t wait_any_watched(std::span<const RequestPtr> requests, std::size_t first_ended);
  std::size_t wait_any_in_set(std::span<const RequestPtr> requests, const RequestList* list = nullptr);
  // Registers requests[slot] at `slot` of the actor's WaitSet unless it is there already.
  void sync_slot(WaitSet& set, std::span<const RequestPtr> requests, std::size_t slot);
  std::size_t take_ended(std::span<const RequestPtr> requests, std::size_t chosen);
  // Whether a message on `tag` is matched and delivered by DirectMessages: a control channel's, or any under
  // data_messages "direct".
  bool goes_direct(Tag tag) const;
  // shared: the message shares its links (a data message under data_messages "direct").
  void send_direct(int dst, int key_src, Tag tag, Payload payload, double logical_bytes,
                   std::shared_ptr<DirectMessages::End> sender, bool shared);
  SimWorld& world_;
  int rank_;
  PostedSends posted_;
  std::unique_ptr<WakeUp> waiter_;  // this actor's, for the watched waits its WaitSet does not serve (direct ones)
  std::unique_ptr<WaitSet> wait_set_;  // this actor's, once it has waited on many requests or a list (WaitSet.hpp)
  // The RequestList the WaitSet was last synced with (its id; 0: none, or another list or span since) and how many
  // waits that list had had by then (RequestList::waits).
  std::uint64_t set_list_id_ = 0, set_list_waits_ = 0;
};

}  // namespace quorum
