#include "sim/simgrid/DirectMessages.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <string>

#include "sim/model/FreeSlots.hpp"
#include "sim/simgrid/HostRoute.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

bool DirectMessages::carries(Tag tag) {
  switch (tags::channel_of(tag)) {
    case Channel::Control:
    case Channel::Activation:
    case Channel::GroupGenerator:
      return true;
    default:
      return false;
  }
}

bool DirectMessages::usable() {
  // Timers are set from actors' code, which the sequential engine (run_ranks requires it) runs on maestro's thread.
  return simgrid::config::get_value<std::string>("network/model") == "CM02";
}

DirectMessages::DirectMessages(std::shared_ptr<CommCompletions> completions, RouteSegments& routes,
                               DirectFlows* flows)
    : completions_(std::move(completions)),
      route_segments_(routes),
      flows_(flows),
      tcp_gamma_(simgrid::config::get_value<double>("network/TCP-gamma")),
      pair_limit_(platform_pair_cache_limit()),
      arrivals_([this](std::span<Delivery> due) { deliver(due); }) {
  if (flows_ != nullptr) flows_->set_arrivals([this](std::span<const std::uint32_t> slots) { shared_arrived(slots); });
}

DirectMessages::~DirectMessages() {
  if (flows_ != nullptr) flows_->set_arrivals(nullptr);  // flows_ outlives this object
}

void DirectMessages::send(std::uint64_t key, const HostPair& hosts, std::unique_ptr<Message> message, double bytes,
                          std::shared_ptr<End> sender, bool shared) {
  InFlight m{std::move(message), 0, std::move(sender)};
  if (shared && flows_ != nullptr) {
    m.hosts = hosts;
    m.bytes = bytes;
  } else {
    m.duration_s = route_cost(hosts).duration(bytes);
  }
  const std::uint32_t index = box_of(key);
  Box& box = boxes_[index];  // held only through kernel-side calls (no simcall: no other actor runs meanwhile)
  while (!box.receivers.empty() && box.receivers.front()->watch.abandoned) box.receivers.pop_front();
  if (box.receivers.empty()) {
    box.unmatched.push_back(std::move(m));
    return;
  }
  std::shared_ptr<End> receiver = std::move(box.receivers.front());
  box.receivers.pop_front();
  release_box_if_empty(key, index);  // most keys serve one message
  start(std::move(m), std::move(receiver));
}

void DirectMessages::receive(std::uint64_t key, std::shared_ptr<End> receiver) {
  const std::uint32_t index = box_of(key);
  Box& box = boxes_[index];
  if (box.unmatched.empty()) {
    box.receivers.push_back(std::move(receiver));
    return;
  }
  InFlight m = std::move(box.unmatched.front());
  box.unmatched.pop_front();
  release_box_if_empty(key, index);
  start(std::move(m), std::move(receiver));
}

// The box of `key`, given one from the free list (or a new one) on first use.
std::uint32_t DirectMessages::box_of(std::uint64_t key) {
  static_assert(sizeof(InPlaceFifo<std::shared_ptr<End>>) + 2 * sizeof(std::uint32_t) <= kCacheLineBytes,
                "a box's first line no longer holds its receivers and the count of its messages");
  std::uint32_t& entry = box_index_.at(key);
  if (entry != 0) return entry - 1;
  const std::uint32_t index = take_free_slot(boxes_, free_boxes_, "DirectMessages: mailboxes with something pending");
  entry = index + 1;
  return index;
}

void DirectMessages::release_box_if_empty(std::uint64_t key, std::uint32_t index) {
  const Box& box = boxes_[index];
  if (!box.receivers.empty() || !box.unmatched.empty()) return;
  box_index_.erase(key);
  free_boxes_.push_back(index);
}

// Both sides have posted: the transfer runs from now.
void DirectMessages::start(InFlight message, std::shared_ptr<End> receiver) {
  if (message.hosts.from != nullptr) {
    const HostPair hosts = message.hosts;
    const double bytes = message.bytes;
    const std::uint32_t slot =
        take_free_slot(shared_in_flight_, free_shared_slots_, "DirectMessages: shared messages in flight");
    shared_in_flight_[slot] = Delivery{std::move(message), std::move(receiver)};
    flows_->start(hosts, bytes, slot);
    return;
  }
  const double arrival = sg4::Engine::get_clock() + message.duration_s;
  arrivals_.add(arrival, Delivery{std::move(message), std::move(receiver)});
}

void DirectMessages::shared_arrived(std::span<const std::uint32_t> slots) {
  // Taken out of their slots first: a slot may be reused by the time its receiver runs. (The slots are read ahead:
  // hundreds of them, which the moves would otherwise miss one after the other.)
  arriving_.clear();
  for (const std::uint32_t slot : slots) touch_lines(&shared_in_flight_[slot], sizeof(Delivery));
  for (const std::uint32_t slot : slots) {
    arriving_.push_back(std::move(shared_in_flight_[slot]));
    free_shared_slots_.push_back(slot);
  }
  deliver(arriving_);
}

// The messages due at this instant, in order: read ahead a few at a time (warm), then arrived one by one.
void DirectMessages::deliver(std::span<Delivery> due) {
  // Enough deliveries for their misses to overlap, few enough for what warm() fetched to stay in the first cache
  // levels until arrive() reads it (32: a guess within those bounds, not tuned).
  constexpr std::size_t kWarmBatch = 32;
  // The wakes and continuations of the ends run after the whole batch, in order (CommCompletions::end_batch).
  struct Batch {
    explicit Batch(CommCompletions& c) : completions(c) { completions.begin_batch(); }
    ~Batch() { completions.end_batch(); }
    CommCompletions& completions;
  } batch_of_ends(*completions_);
  for (std::size_t first = 0; first < due.size(); first += kWarmBatch) {
    const std::span<Delivery> batch = due.subspan(first, std::min(kWarmBatch, due.size() - first));
    warm(batch);
    for (Delivery& d : batch) arrive(d.message, d.receiver);
  }
}

// Reads what arrive() will read for a batch, so that the misses overlap (CacheTouch.hpp): each end, a heap block
// allocated when its request was posted, often a step ago (arrive() read the receiver's in 2 to 3% of an eager-SGD
// step at 4,096 ranks, nearly all of it a miss), then the wake-up of each actor that waits on one (WakeUp::warm).
// Only reads: an actor waiting on an end keeps its wake-up alive, and no actor runs until the batch is delivered.
void DirectMessages::warm(std::span<const Delivery> batch) {
  for (const Delivery& d : batch) {
    touch_lines(d.receiver.get(), sizeof(End));
    if (d.message.sender) touch_lines(d.message.sender.get(), sizeof(End));
  }
  for (const Delivery& d : batch)
    for (const End* end : {d.receiver.get(), d.message.sender.get()}) {
      if (end == nullptr) continue;
      if (end->watch.waiter != nullptr) end->watch.waiter->warm();
      // A chain progressed in maestro (SimComm's KernelExchange) reads its state on the agent's stack. 512 bytes from
      // the exchange: its own lines, the frames above it and the chain's first line, not the chain's state further up
      // (a probe of the addresses, stop 67; reading exactly what it reads added misses: docs/performance-log.md, "A
      // continuation's state read just before it runs").
      if (end->watch.then != nullptr) touch_lines(end->watch.then, 512);
    }
}

void DirectMessages::arrive(InFlight& message, const std::shared_ptr<End>& receiver) {
  CommCompletions::Watch* receiver_watch = nullptr;
  if (!receiver->watch.abandoned) {
    receiver->delivered = std::move(message.message);
    receiver_watch = &receiver->watch;
  }
  CommCompletions::Watch* sender_watch =
      message.sender && !message.sender->watch.abandoned ? &message.sender->watch : nullptr;
  completions_->ended(sender_watch, receiver_watch);
}

// The unshared flow's cost between the hosts (HostRoute.hpp), looked up once per host pair.
const UnsharedFlowCost& DirectMessages::route_cost(const HostPair& hosts) {
  if (const UnsharedFlowCost* cost = routes_.find(hosts.key)) return *cost;
  if (routes_.size() >= pair_limit_) routes_.clear();
  return routes_.at(hosts.key) = unshared_flow_cost(route_segments_.links(hosts), tcp_gamma_);
}

}  // namespace quorum
