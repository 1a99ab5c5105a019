#include "sim/simgrid/SimComm.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <typeinfo>

#include "algorithms/comm/RequestList.hpp"
#include "algorithms/comm/Schedule.hpp"
#include "sim/model/InlineVector.hpp"
#include "sim/model/SlowLinkCost.hpp"
#include "sim/simgrid/CacheTouch.hpp"
#include "sim/simgrid/CooperativeMutex.hpp"
#include "sim/simgrid/FreeListAllocator.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

namespace {

// The source a message from `rank` on `tag` is matched under: kAnySource for an any-source tag (its receiver names
// none), else the sender.
int mailbox_source(int rank, Tag tag) { return tags::is_any_source(tag) ? kAnySource : rank; }

// The rank whose agents own a request, mutex, condition variable or agent handle: every call of theirs into SimGrid
// returns to the rank's state, so it awaits the rank's math first (RankMathPool).
struct RankOf {
  void resumed() const noexcept {
    if (pool) pool->await(rank);
  }
  std::shared_ptr<RankMathPool> pool;  // null: the math runs inline
  int rank;
};

// What only a request on SimGrid's path uses (a direct message's request has none of it).
struct SimGridTransfer {
  SimGridTransfer(RankOf rank, std::shared_ptr<CommCompletions> ends)
      : owner(std::move(rank)), completions(std::move(ends)) {}
  sg4::CommPtr comm;
  Message* raw = nullptr;  // where SimGrid delivers the sender's message
  CommCompletions::Watch watch;
  RankOf owner;
  std::shared_ptr<CommCompletions> completions;
  const void* kernel = nullptr;  // the communication's kernel activity, while watched
};

// A direct message's request, with its shared pointer's counts, fills one cache line: between its send or receive and
// its end the other ranks' events evict it, and its end, its taking and its release read it again, one miss each
// where it took up to three (docs/performance-log.md, "A request and a direct message's end in one cache line each").
// SimGrid's part is apart (`sg`), made only for a request on SimGrid's path.
class SimRequest final : public Request {
 public:
  explicit SimRequest(bool is_receive) : receive(is_receive) {}
  ~SimRequest() override {
    if (WaitSet* set = watch().set) set->drop(watch().slot);
    if (direct) {  // a receive still queued gets no message; a message in flight is dropped at its arrival
      direct->watch.abandoned = true;
      direct->watch.waiter = nullptr;
      direct->watch.then = nullptr;
    }
    if (!sg) return;
    unwatch();
    // A receive dropped while pending must not let SimGrid write into freed memory later.
    if (receive && !done && sg->comm && sg4::Actor::self() != nullptr) {
      sg->comm->cancel();
      sg->owner.resumed();
    }
    delete sg->raw;
  }

  // A request on SimGrid's path, before its communication starts.
  void use_simgrid(RankOf owner, std::shared_ptr<CommCompletions> completions) {
    sg = std::make_unique<SimGridTransfer>(std::move(owner), std::move(completions));
  }
  // Once `comm()` is started: from now on its end is noted in `watch` (CommCompletions).
  void start_watching() {
    sg->kernel = sg->comm->get_impl();
    sg->completions->watch(sg->kernel, &sg->watch);
  }
  void unwatch() {
    if (sg->kernel != nullptr && !sg->watch.ended) sg->completions->forget(sg->kernel, &sg->watch);
    sg->kernel = nullptr;
  }
  // SimGrid's communication (a request on SimGrid's path only).
  sg4::CommPtr& comm() { return sg->comm; }

  // Called once the communication has finished (SimGrid's, or a direct message's arrival).
  void complete() {
    if (done) return;
    mark_done();
    if (receive && direct) {
      message = std::move(direct->delivered);
    } else if (receive) {
      message.reset(sg->raw);
      sg->raw = nullptr;
    }
  }

  void mark_done() {
    done = true;
    if (WaitSet* set = watch().set) set->done(watch().slot);
  }

  // Where its end is noted: the direct message's end, or the watched SimGrid communication's.
  CommCompletions::Watch& watch() { return direct ? direct->watch : sg->watch; }

  const bool receive;
  bool done = false;
  bool cancelled = false;
  std::shared_ptr<DirectMessages::End> direct;  // a control channel's message (DirectMessages.hpp)
  std::unique_ptr<Message> message;
  std::unique_ptr<SimGridTransfer> sg;  // null for a direct message
};
// With shared_ptr's control block before it (libstdc++: its vtable pointer and two counts).
static_assert(sizeof(SimRequest) + 2 * sizeof(void*) <= kCacheLineBytes, "a request no longer fits a cache line");
static_assert(sizeof(DirectMessages::End) + 2 * sizeof(void*) <= kCacheLineBytes, "an end no longer fits a line");

// A send or receive makes a request, and a direct message's end with it, and frees them once done: thousands at once
// in a butterfly's phase. They come from free lists, not malloc (docs/performance-log.md, "Requests and their message
// ends from a free list"), a request's block aligned to a cache line.
std::shared_ptr<SimRequest> new_request(bool is_receive) {
  return std::allocate_shared<SimRequest>(FreeListAllocator<SimRequest, kCacheLineBytes>{}, is_receive);
}
std::shared_ptr<DirectMessages::End> new_end() {
  return std::allocate_shared<DirectMessages::End>(FreeListAllocator<DirectMessages::End, kCacheLineBytes>{});
}

// SimRequest is final, so comparing the dynamic type is the exact check, and cheaper than a dynamic_cast: a server's
// wait_any looks at every worker's request once per message.
SimRequest& as_sim(const RequestPtr& r) {
  Request* request = r.get();
  if (request == nullptr || typeid(*request) != typeid(SimRequest))
    throw std::logic_error("request does not belong to the SimGrid backend");
  return static_cast<SimRequest&>(*request);
}

// Among requests, the one whose communication ended first (CommCompletions' order), or requests.size() if none has:
// what a wait on them returns once woken.
std::size_t first_to_end(std::span<const RequestPtr> requests) {
  std::size_t first = requests.size();
  std::uint64_t order = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& watch = as_sim(requests[i]).watch();
    if (watch.ended && (first == requests.size() || watch.order < order)) {
      first = i;
      order = watch.order;
    }
  }
  return first;
}

std::size_t watched_wait_any_from = 16;

// A RequestList is taken up by its changes alone (one receive replaced a wait), where a span is compared with the set
// whole at every call, so the set pays for itself on far shorter lists: a partial collective's agent waits on 11 to
// 15 listeners (1,024 to 16,384 ranks), and watching them cut eager-SGD majority's last-level misses at 4,096 ranks by
// 8%, solo's by 4% (docs/performance-log.md). Lists are watched from min(watched_wait_any_from, 2) requests unless
// watching is off (SIZE_MAX: the tests' way to SimGrid's wait_any).
std::size_t list_watched_from() {
  constexpr std::size_t kOff = std::numeric_limits<std::size_t>::max();
  return watched_wait_any_from == kOff ? kOff : std::min<std::size_t>(watched_wait_any_from, 2);
}

std::uint64_t simulated_bytes(double logical_bytes) {
  return logical_bytes <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(logical_bytes));
}

class SimMutex final : public Mutex {
 public:
  explicit SimMutex(RankOf owner) : owner_(owner) {}
  void lock() override {
    mutex.lock();
    owner_.resumed();
  }
  void unlock() override {
    mutex.unlock();
    owner_.resumed();
  }
  CooperativeMutex mutex;

 private:
  RankOf owner_;
};

class SimConditionVariable final : public ConditionVariable {
 public:
  explicit SimConditionVariable(RankOf owner) : owner_(owner) {}
  void wait(std::unique_lock<Mutex>& lock) override {
    auto* m = dynamic_cast<SimMutex*>(lock.mutex());
    if (m == nullptr) throw std::logic_error("condition variable used with a mutex of another backend");
    cv.wait(m->mutex);
    owner_.resumed();
  }
  void notify_one() override {
    cv.notify_one();
    owner_.resumed();
  }
  void notify_all() override {
    cv.notify_all();
    owner_.resumed();
  }
  CooperativeConditionVariable cv;

 private:
  RankOf owner_;
};

// Set when an agent's body has returned. Joining waits for this, not for the actor's end: an agent whose posted
// messages are still pending lives on as a daemon until they are delivered (see PostedSends).
struct AgentDone {
  void set() {
    std::unique_lock lock(*mutex);
    done = true;
    cv->notify_all();
  }
  void wait() {
    std::unique_lock lock(*mutex);
    while (!done) cv->wait(lock);
  }
  sg4::MutexPtr mutex = sg4::Mutex::create();
  sg4::ConditionVariablePtr cv = sg4::ConditionVariable::create();
  bool done = false;
};

class SimAgent final : public Agent {
 public:
  SimAgent(std::shared_ptr<AgentDone> done, RankOf owner) : done_(std::move(done)), owner_(owner) {}
  void join() override {
    done_->wait();
    owner_.resumed();
  }

 private:
  std::shared_ptr<AgentDone> done_;
  RankOf owner_;
};

}  // namespace

void SimComm::set_watched_wait_any_from(std::size_t requests) {
  watched_wait_any_from = std::max<std::size_t>(requests, 1);
}

double SimComm::now() const { return sg4::Engine::get_clock(); }

void SimComm::check_peer(int peer, const char* what) const {
  if (peer < 0 || peer >= world_.size())
    throw std::logic_error(std::string(what) + ": rank " + std::to_string(peer) + " out of range");
}

RequestPtr SimComm::isend(int dst, Tag tag, Payload payload, double logical_bytes) {
  check_peer(dst, "isend");
  auto request = new_request(false);
  if (goes_direct(tag)) {
    request->direct = direct_isend(dst, tag, std::move(payload), logical_bytes);
    return request;
  }
  const int key_src = mailbox_source(rank_, tag);
  auto* msg = new Message{rank_, tag, std::move(payload)};
  request->use_simgrid(RankOf{world_.math_pool(), rank_}, world_.completions());
  request->comm() = world_.mailbox(dst, key_src, tag)->put_async(msg, simulated_bytes(logical_bytes));
  request->start_watching();
  resumed();
  return request;
}

void SimComm::post(int dst, Tag tag, Payload payload, double logical_bytes) {
  check_peer(dst, "post");
  const int key_src = mailbox_source(rank_, tag);
  if (goes_direct(tag)) {
    // A small posted message that carries no floats is unshared, as a courier delivers it on SimGrid's path.
    const bool unshared = DirectMessages::carries(tag) ||
                          (world_.control_couriers() != nullptr && ControlCouriers::fits(logical_bytes, payload) &&
                           world_.host(dst) != world_.host(rank_));
    send_direct(dst, key_src, tag, std::move(payload), logical_bytes, nullptr, !unshared);
    return;
  }
  auto* msg = new Message{rank_, tag, std::move(payload)};
  simgrid::s4u::Mailbox* mailbox = world_.mailbox(dst, key_src, tag);
  ControlCouriers* couriers = world_.control_couriers();
  const bool couriered = couriers != nullptr && ControlCouriers::fits(logical_bytes, msg->payload) &&
                         couriers->post(world_.host(rank_), world_.host(dst), mailbox, msg, logical_bytes);
  // Otherwise an ordinary send that this actor reaps, not a detached one (see PostedSends); the receiver owns msg.
  if (!couriered) posted_.add(mailbox->put_async(msg, simulated_bytes(logical_bytes)));
  resumed();
}

bool SimComm::goes_direct(Tag tag) const {
  return world_.direct_messages() != nullptr && (world_.direct_data() || DirectMessages::carries(tag));
}

void SimComm::send_direct(int dst, int key_src, Tag tag, Payload payload, double logical_bytes,
                          std::shared_ptr<DirectMessages::End> sender, bool shared) {
  world_.direct_messages()->send(SimWorld::mailbox_key(dst, key_src, tag), world_.host_pair(rank_, dst),
                                 std::make_unique<Message>(Message{rank_, tag, std::move(payload)}), logical_bytes,
                                 std::move(sender), shared);
}

std::shared_ptr<DirectMessages::End> SimComm::direct_isend(int dst, Tag tag, Payload payload,
                                                          double logical_bytes) {
  const int key_src = mailbox_source(rank_, tag);
  auto end = new_end();
  send_direct(dst, key_src, tag, std::move(payload), logical_bytes, end, !DirectMessages::carries(tag));
  return end;
}

void SimComm::check_receive(int src, Tag tag) const {
  if (tags::is_any_source(tag) != (src == kAnySource))
    throw std::logic_error("irecv: tag " + std::to_string(tag) +
                           (src == kAnySource ? " is not an any-source tag but was received from kAnySource"
                                              : " is an any-source tag; receive it with kAnySource"));
  if (src != kAnySource) check_peer(src, "irecv");
}

std::shared_ptr<DirectMessages::End> SimComm::direct_irecv(int src, Tag tag) {
  auto end = new_end();
  world_.direct_messages()->receive(SimWorld::mailbox_key(rank_, src, tag), end);
  return end;
}

RequestPtr SimComm::irecv(int src, Tag tag) {
  check_receive(src, tag);
  auto request = new_request(true);
  if (goes_direct(tag)) {
    request->direct = direct_irecv(src, tag);
    return request;
  }
  request->use_simgrid(RankOf{world_.math_pool(), rank_}, world_.completions());
  request->comm() = world_.mailbox(rank_, src, tag)->get_async<Message>(&request->sg->raw);
  request->start_watching();
  resumed();
  return request;
}

bool SimComm::test(const RequestPtr& request) {
  auto& r = as_sim(request);
  if (r.done) return true;
  if (r.direct) {
    if (r.direct->watch.ended) r.complete();
    return r.done;
  }
  const bool finished = r.comm()->test();
  resumed();
  if (finished) r.complete();
  return finished;
}

void SimComm::cancel(const RequestPtr& request) {
  auto& r = as_sim(request);
  if (r.done) return;
  if (r.direct) {
    r.direct->watch.abandoned = true;
  } else {
    r.unwatch();
    r.comm()->cancel();
    resumed();
  }
  r.mark_done();
  r.cancelled = true;
}

Message SimComm::take(const RequestPtr& request) {
  auto& r = as_sim(request);
  if (!r.receive || !r.done || r.cancelled || !r.message)
    throw std::logic_error("take: not a completed receive (or already taken)");
  Message m = std::move(*r.message);
  r.message.reset();
  return m;
}

void SimComm::do_wait(const RequestPtr& request) {
  auto& r = as_sim(request);
  if (r.done) return;
  if (r.direct) {  // SimGrid knows nothing of it: the watched wait over this one request
    wait_any_watched(std::span(&request, 1), r.watch().ended ? 0 : 1);
    return;
  }
  r.comm()->wait();
  resumed();
  r.complete();
}

std::size_t SimComm::do_wait_any(std::span<const RequestPtr> requests) {
  if (requests.empty()) throw std::logic_error("wait_any on no requests");
  if (requests.size() >= watched_wait_any_from) {
    const std::size_t chosen = wait_any_in_set(requests);
    if (chosen < requests.size()) return chosen;
  }
  std::size_t first_ended = requests.size();
  bool any_direct = false;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    SimRequest& r = as_sim(requests[i]);
    if (r.done) return i;
    if (r.watch().ended && first_ended == requests.size()) first_ended = i;
    any_direct = any_direct || r.direct;
  }
  // Many requests, or direct messages, which SimGrid knows nothing of: CommCompletions says which ended (SimGrid's
  // wait_any would cost O(n) per call).
  if (any_direct || requests.size() >= watched_wait_any_from) return wait_any_watched(requests, first_ended);
  std::vector<sg4::CommPtr> comms;
  comms.reserve(requests.size());
  for (const auto& r : requests) comms.push_back(as_sim(r).comm());
  const auto i = static_cast<std::size_t>(sg4::Comm::wait_any(comms));
  resumed();
  as_sim(requests[i]).complete();
  return i;
}

// Completes requests[chosen], whose communication has ended, and returns `chosen`.
std::size_t SimComm::take_ended(std::span<const RequestPtr> requests, std::size_t chosen) {
  auto& r = as_sim(requests[chosen]);
  if (!r.direct) {
    r.comm()->wait();  // SimGrid has finished it: returns at once and lets SimGrid forget it
    resumed();
  }
  r.complete();
  return chosen;
}

// wait_any_watched's choice, from the requests' slots in this actor's WaitSet, which keeps them registered between
// calls. With `list` (whose positions `requests` are), only the positions it changed since its last wait are synced
// if the set was last synced with it at that wait; else every one. Returns requests.size() if the list names a request
// twice (the set cannot serve it).
std::size_t SimComm::wait_any_in_set(std::span<const RequestPtr> requests, const RequestList* list) {
  if (!wait_set_) wait_set_ = std::make_unique<WaitSet>();
  WaitSet& set = *wait_set_;
  const bool knows_list = list != nullptr && set_list_id_ == list->id() && set_list_waits_ == list->waits();
  set_list_id_ = 0;  // known again once synced with a list
  if (knows_list) {
    for (const std::uint32_t slot : list->changed())
      if (slot < requests.size()) sync_slot(set, requests, slot);
    for (std::size_t slot = list->changed_from(); slot < requests.size(); ++slot) sync_slot(set, requests, slot);
  } else {
    for (std::size_t slot = 0; slot < requests.size(); ++slot) sync_slot(set, requests, slot);
  }
  if (!set.end_sync(requests.size())) {
    set.clear();
    return requests.size();
  }
  if (list != nullptr) {
    set_list_id_ = list->id();
    set_list_waits_ = list->waits() + 1;  // Comm::wait_any counts this wait once it returns
  }
  std::size_t chosen = requests.size();
  if (set.choose(chosen)) {
    if (as_sim(requests[chosen]).done) return chosen;
  } else {
    try {
      set.wake_up().wait();
    } catch (...) {
      resumed();
      throw;
    }
    resumed();
    chosen = set.first_to_end();
    if (chosen >= requests.size()) throw std::logic_error("wait_any: woken with no request ended");
  }
  return take_ended(requests, chosen);
}

std::size_t SimComm::do_wait_any_list(const RequestList& list) {
  if (list.live() < list_watched_from()) return Comm::do_wait_any_list(list);
  const std::size_t chosen = wait_any_in_set(list.all(), &list);
  return chosen < list.size() ? chosen : Comm::do_wait_any_list(list);
}

void SimComm::sync_slot(WaitSet& set, std::span<const RequestPtr> requests, std::size_t slot) {
  if (set.holds(slot, requests[slot].get())) return;
  if (!requests[slot]) {  // a RequestList's retired position: nothing to wait on there
    set.drop(static_cast<std::uint32_t>(slot));
    return;
  }
  SimRequest& r = as_sim(requests[slot]);
  set.put(slot, requests[slot].get(), &r.watch(), r.done);
}

// SimGrid's wait_any's choice, without registering on every request: the first request in the list whose
// communication has already ended (`first_ended`, or requests.size() if none), else the first to end.
std::size_t SimComm::wait_any_watched(std::span<const RequestPtr> requests, std::size_t first_ended) {
  std::size_t chosen = first_ended;
  if (chosen == requests.size()) {
    if (!waiter_) waiter_ = std::make_unique<WakeUp>();
    const auto set_waiter = [&](WakeUp* waiter) {
      for (const auto& r : requests) as_sim(r).watch().waiter = waiter;
    };
    set_waiter(waiter_.get());
    try {
      waiter_->wait();
    } catch (...) {
      set_waiter(nullptr);
      resumed();
      throw;
    }
    resumed();
    set_waiter(nullptr);
    chosen = first_to_end(requests);
    if (chosen == requests.size()) throw std::logic_error("wait_any: woken with no request ended");
  }
  return take_ended(requests, chosen);
}

// A chain of exchanges progressed in maestro: each phase's continuation runs where the agent would have been woken
// (CommCompletions queues it in the order of the batch's ends, as the wake it replaces), and the agent is woken once,
// when the last phase is done. The agent's wait time is accounted phase by phase, as its waits would have been.
// A phase's receive and send are direct messages' ends, held here without the requests irecv and isend would wrap
// them in: what a request adds (its line, read again at the end, the taking and the release) nothing here uses.
class alignas(kCacheLineBytes) SimComm::KernelExchange final : public CommCompletions::Continuation {
 public:
  // Every phase's partner and tag are asked for here, on the agent, where what the chain's functions read (a
  // butterfly's state, its map of ranks, the collective's tags) was just read to make the chain: asked for at each
  // phase's start in maestro, after the other ranks' phases had evicted those lines, they were some five misses a phase
  // (eager-SGD at 4,096 ranks: docs/performance-log.md, "A butterfly's partners and tags asked for once a chain").
  // They depend on the phase alone (ExchangeChain's contract).
  KernelExchange(SimComm& comm, const ExchangeChain& chain) : comm_(comm), chain_(chain) {
    static_assert(sizeof(KernelExchange) == 4 * kCacheLineBytes,
                  "the exchange's layout moved: its members no longer fill its first lines as said below");
    peers_by_phase_.assign(static_cast<std::size_t>(std::max(chain.phases, 0)), [&chain](std::size_t j) {
      const int phase = static_cast<int>(j);
      return Peer{chain.partner(phase), chain.tag(phase)};
    });
    peers_ = peers_by_phase_.data();
  }
  ~KernelExchange() {
    abandon(recv_);
    abandon(send_);
  }
  KernelExchange(const KernelExchange&) = delete;  // peers_ may point into it, the ends' watches at it
  KernelExchange& operator=(const KernelExchange&) = delete;

  void start(int phase) {
    phase_ = phase;
    phase_start_ = comm_.now();
    const auto [partner, tag] = peers_[phase];
    // As irecv and isend would check, and would make direct messages (do_exchange checked phase 0's tag).
    comm_.check_receive(partner, tag);
    if (!comm_.goes_direct(tag))
      throw std::logic_error("exchange: phase " + std::to_string(phase) + "'s tag " + std::to_string(tag) +
                             " is not a direct message's, phase 0's was");
    recv_ = comm_.direct_irecv(partner, tag);
    send_ = comm_.direct_isend(partner, tag, chain_.payload(phase), chain_.logical_bytes(phase));
    received_ = false;
    progress();
  }
  bool finished() const { return finished_; }
  std::exception_ptr error() const { return error_; }
  void set_waiter(WakeUp* waiter) { waiter_ = waiter; }

 private:
  void resume() override { progress(); }

  // What the agent would do once woken, as far as the ended requests allow; arms the next request to wait for.
  void progress() {
    try {
      for (;;) {
        if (!received_) {
          if (!arm(*recv_)) return;
          comm_.account_blocked(phase_start_);  // wait(recv)
          recv_end_ = comm_.now();
          if (!recv_->delivered) throw std::logic_error("exchange: a receive ended without its message");
          received_ = true;
        }
        if (!arm(*send_)) return;
        comm_.account_blocked(recv_end_);  // wait(send)
        comm_.resumed();  // the rank's math is done before its state is read
        // The message stays in its end until the phase is done (take() would move it out: one more line to write).
        chain_.received(phase_, *recv_->delivered);
        recv_.reset();
        send_.reset();
        if (phase_ + 1 == chain_.phases) break;
        start(phase_ + 1);
        return;  // start() progressed the next phase
      }
    } catch (...) {
      error_ = std::current_exception();
    }
    finished_ = true;
    if (waiter_ != nullptr) waiter_->wake();
  }

  // Whether the transfer has ended; if not, its end will resume this chain.
  bool arm(DirectMessages::End& end) {
    if (end.watch.ended) return true;
    end.watch.then = this;
    return false;
  }
  // As a request given up would leave its end (SimRequest's destructor): a receive still queued gets no message, a
  // message in flight is dropped at its arrival, and nothing runs at its end.
  static void abandon(const std::shared_ptr<DirectMessages::End>& end) {
    if (!end) return;
    end->watch.abandoned = true;
    end->watch.waiter = nullptr;
    end->watch.then = nullptr;
  }

  struct Peer {
    int partner;
    Tag tag;
  };
  // A butterfly's phases in place up to 2^16 ranks; a longer chain's on the heap.
  static constexpr std::size_t kInPlacePhases = 16;

  // What every phase reads, in the exchange's first two lines (it is aligned to one), the first four phases' peers in
  // the second: 8 bytes of the virtual table's pointer, then 56 and 32 bytes of members, then the peers, 8 bytes each.
  // peers_ is peers_by_phase_.data(), read once: the vector's own size, which data() tests, is in the fourth line.
  SimComm& comm_;
  const ExchangeChain& chain_;
  std::shared_ptr<DirectMessages::End> recv_, send_;
  double phase_start_ = 0;
  double recv_end_ = 0;
  int phase_ = 0;
  bool received_ = false;
  bool finished_ = false;
  WakeUp* waiter_ = nullptr;
  const Peer* peers_ = nullptr;  // peers_by_phase_'s, by phase
  InlineVector<Peer, kInPlacePhases> peers_by_phase_;
  std::exception_ptr error_;
};

// Blocks this agent until a progress in maestro (KernelExchange, KernelSchedule) that could not finish here wakes it,
// then rethrows what failed there.
template <typename Kernel>
void SimComm::await_kernel(Kernel& kernel) {
  if (!kernel.finished()) {
    if (!waiter_) waiter_ = std::make_unique<WakeUp>();
    kernel.set_waiter(waiter_.get());
    try {
      waiter_->wait();
    } catch (...) {
      resumed();
      throw;
    }
    resumed();
  }
  if (kernel.error()) std::rethrow_exception(kernel.error());
}

void SimComm::do_exchange(const ExchangeChain& chain) {
  if (chain.phases <= 0) return;
  // In maestro a continuation may not block: no sleep for the reductions' charge, and only DirectMessages' transfers
  // (SimGrid's need an actor); a wait observer would see one wait where the agent made two a phase.
  if (!goes_direct(chain.tag(0)) || world_.reduce_Bps() > 0 || observes_waits()) {
    Comm::do_exchange(chain);
    return;
  }
  KernelExchange exchange(*this, chain);
  // Run here, as the agent, until it has to wait.
  exchange.start(0);
  await_kernel(exchange);
}

// A Schedule progressed in maestro: where the agent would be woken by the first end among the schedule's requests,
// its continuations run in its place (CommCompletions queues this in the order of the batch's ends, as the wake it
// replaces), choosing the requests in the order the agent's waits would; the agent is woken once, when none is left.
// Its wait time is accounted wait by wait, as its waits would have been. What differs from the agent's loop: the agent
// would have run after all of maestro's work, after the actors woken before it, so at one instant a continuation's
// sends now come before theirs (Prague's groups, formed in the order requests reach the generator, move as a seed
// does: docs/performance-log.md, "A `Schedule`'s continuations run in maestro").
class SimComm::KernelSchedule final : public CommCompletions::Continuation {
 public:
  KernelSchedule(SimComm& comm, Schedule& schedule) : comm_(comm), schedule_(schedule) {}
  ~KernelSchedule() { disarm(); }

  // From the agent, then from each armed request's end in maestro: what the agent would do once woken, as far as the
  // ended requests allow; arms the schedule's requests when it has to wait.
  void progress() {
    if (finished_) return;  // done, failed or handed back: a later end queued in the same batch has nothing to do
    try {
      if (blocked_) {
        // The agent's wait (wait_any_watched) would return the request that ended first; a later end queued in the
        // same batch finds it chose already, and waits on.
        const std::span<const RequestPtr> pending = schedule_.pending();
        const std::size_t first = first_to_end(pending);
        if (first == pending.size()) return;
        blocked_ = false;
        disarm();
        comm_.account_blocked(blocked_since_);  // its wait_any
        comm_.take_ended(pending, first);
        comm_.resumed();  // the rank's math is done before its state is read
        schedule_.complete(first);
      }
      for (;;) {
        if (schedule_.empty()) break;
        const std::span<const RequestPtr> pending = schedule_.pending();
        // What SimComm's wait_any serves otherwise (SimGrid's communications, a wait set) goes back to the agent.
        if (pending.size() >= watched_wait_any_from || !all_direct(pending)) {
          handed_back_ = true;
          break;
        }
        // Its wait_any on entry: the first request done, else the first ended, by position.
        std::size_t chosen = kNone;
        for (std::size_t i = 0; i < pending.size() && chosen == kNone; ++i)
          if (as_sim(pending[i]).done) chosen = i;
        if (chosen == kNone) {
          for (std::size_t i = 0; i < pending.size() && chosen == kNone; ++i)
            if (as_sim(pending[i]).watch().ended) chosen = i;
          if (chosen == kNone) {
            blocked_ = true;
            blocked_since_ = comm_.now();
            arm(pending);
            return;
          }
          comm_.take_ended(pending, chosen);
        }
        schedule_.complete(chosen);
      }
    } catch (...) {
      error_ = std::current_exception();
      disarm();
    }
    finished_ = true;
    if (waiter_ != nullptr) waiter_->wake();
  }
  bool finished() const { return finished_; }
  // Whether the agent is to run the rest of the schedule itself.
  bool handed_back() const { return handed_back_; }
  std::exception_ptr error() const { return error_; }
  void set_waiter(WakeUp* waiter) { waiter_ = waiter; }

 private:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  void resume() override { progress(); }

  static bool all_direct(std::span<const RequestPtr> pending) {
    for (const auto& r : pending)
      if (!as_sim(r).direct) return false;
    return true;
  }
  void arm(std::span<const RequestPtr> pending) {
    for (const auto& r : pending) {
      CommCompletions::Watch& watch = as_sim(r).watch();
      watch.then = this;
    }
  }
  void disarm() {
    for (const auto& r : schedule_.pending())
      if (r) as_sim(r).watch().then = nullptr;
  }

  SimComm& comm_;
  Schedule& schedule_;
  bool blocked_ = false;
  double blocked_since_ = 0;
  bool finished_ = false;
  bool handed_back_ = false;
  std::exception_ptr error_;
  WakeUp* waiter_ = nullptr;
};

void SimComm::do_run_schedule(Schedule& schedule) {
  // As for exchanges: in maestro a continuation may not block (the reductions' charge is a sleep), and a wait
  // observer would see one wait where the agent made several.
  if (schedule.empty() || world_.reduce_Bps() > 0 || observes_waits()) {
    Comm::do_run_schedule(schedule);
    return;
  }
  {
    KernelSchedule kernel(*this, schedule);
    // Run here, as the agent, until it has to wait.
    kernel.progress();
    await_kernel(kernel);
    if (!kernel.handed_back()) return;
  }
  Comm::do_run_schedule(schedule);
}

// The step's modelled duration slept in parts, with each part's continuation (e.g. a gradient bucket's allreduce
// handed to an agent) run between them. A single part sleeps the duration itself, so a step charged whole ends at
// exactly now + d, as it always did; several parts end at cumulative shares of d, the last at t0 + d.
double SimComm::do_compute(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                           const std::function<void(std::size_t)>& after_part) {
  if (SlowLinks* slow = world_.slow_links()) slow->enter_step(rank_, step);  // a redrawn slow link changes here
  // The real math costs wall time only. With a pool it runs during the first sleep and resumed() awaits it, so it is
  // done before the first continuation reads its result.
  RankMathPool* pool = world_.math_pool().get();
  if (math && pool == nullptr) math();
  if (math && pool != nullptr) pool->submit(rank_, math);
  const double t0 = now();
  const double d = world_.compute().duration(rank_, step);
  double cumulative = 0;
  for (std::size_t i = 0; i < fractions.size(); ++i) {
    cumulative += fractions[i];
    try {
      if (fractions.size() == 1) {
        sg4::this_actor::sleep_for(d);
      } else {
        const double end = i + 1 == fractions.size() ? t0 + d : t0 + d * cumulative;
        if (end > now()) sg4::this_actor::sleep_until(end);
      }
    } catch (...) {
      resumed();  // killed while sleeping (the simulation ended): the math refers to this stack, so it ends first
      throw;
    }
    resumed();
    if (pool != nullptr && i == 0)
      if (std::exception_ptr error = pool->take_error(rank_)) std::rethrow_exception(error);
    if (after_part) after_part(i);
  }
  return d;
}

void SimComm::sleep_for(double seconds) {
  sg4::this_actor::sleep_for(seconds);
  resumed();
}

// Calibrated CPU costs are times measured with a known share of a core per rank: `core_share`. With a core of its
// own, a rank spends the time as a sleep. On shared cores it runs seconds x core_share core-seconds of work on them:
// alone as measured, and slower when more ranks work at once than there are cores, as the real ranks are.
void SimComm::work(double seconds, double core_share) {
  if (seconds <= 0) return;
  if (sg4::Host* cores = world_.shared_cores(rank_)) {
    sg4::this_actor::exec_init(seconds * core_share * cores->get_speed())->set_host(cores)->wait();
  } else {
    sg4::this_actor::sleep_for(seconds);
  }
  resumed();
}

void SimComm::charge_reduction(double logical_bytes, std::size_t /*real_values: their sum costs wall time only*/) {
  // reduce_Bps was measured with every rank of the node summing at once.
  if (world_.reduce_Bps() > 0 && logical_bytes > 0)
    work(logical_bytes / world_.reduce_Bps(), world_.core_share(world_.ranks_per_node()));
}

NativeCollectives* SimComm::native() { return world_.native_allreduce() != nullptr ? this : nullptr; }

bool SimComm::allreduce_sum(std::vector<float>& data, const Group& group, double logical_bytes, Channel channel) {
  SimNativeAllreduce* impl = world_.native_allreduce();
  if (impl == nullptr) return false;
  const double t0 = now();
  // A slow link of this rank: the library's allreduce moves its share through that link more slowly, holding the
  // group back; the rank arrives that much later (SlowLinkCost.hpp).
  if (SlowLinks* slow = world_.slow_links(); slow != nullptr && slow->factor(rank_) > 1)
    if (const double extra = slow_link_allreduce_extra_s(slow->factor(rank_), group.size(), logical_bytes,
                                                         slow->own_bandwidth_Bps(rank_));
        extra > 0)
      sleep_for(extra);
  const double seconds = impl->meet_and_sum(rank_, data, group, logical_bytes, channel);
  resumed();
  // The table timed the group alone: this node's members shared its cores among themselves only.
  const int node = rank_ / world_.ranks_per_node();
  const auto on_node = std::count_if(group.members.begin(), group.members.end(),
                                     [&](int m) { return m / world_.ranks_per_node() == node; });
  work(seconds, world_.core_share(static_cast<int>(on_node)));
  account_blocked(t0);
  return true;
}

std::unique_ptr<Agent> SimComm::spawn(const std::string& name, std::function<void(Comm&)> body) {
  SimWorld* world = &world_;
  const int rank = rank_;
  ++world_.live_agents;
  // The agent's Comm is made here, so that it gets its agent number (timelines) in spawn order.
  auto agent_comm = std::make_shared<SimComm>(world_, rank_);
  observe_waits_as_new_agent(*agent_comm);
  auto done = std::make_shared<AgentDone>();
  sg4::Actor::create(name + "-" + std::to_string(rank), world_.host(rank),
                     [world, rank, agent_comm, done, body = std::move(body)] {
                       try {
                         agent_comm->resumed();
                         body(*agent_comm);
                       } catch (const std::exception& e) {
                         if (world->first_error.empty())
                           world->first_error = "rank " + std::to_string(rank) + " agent: " + e.what();
                       }
                       --world->live_agents;
                       done->set();
                       agent_comm->deliver_pending_posts();
                     });
  resumed();
  return std::make_unique<SimAgent>(std::move(done), RankOf{world_.math_pool(), rank_});
}

void SimComm::deliver_pending_posts() { posted_.drain_as_daemon(); }

std::unique_ptr<Mutex> SimComm::make_mutex() { return std::make_unique<SimMutex>(RankOf{world_.math_pool(), rank_}); }

std::unique_ptr<ConditionVariable> SimComm::make_condition_variable() {
  return std::make_unique<SimConditionVariable>(RankOf{world_.math_pool(), rank_});
}

}  // namespace quorum
