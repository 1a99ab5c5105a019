#pragma once
// Messages of the control channels (activations, agent wake-ups, the group generator's traffic) matched and
// delivered by quorum on SimGrid's clock, without a SimGrid communication.
//
// Why: a 1,024-rank WAGMA or eager-SGD step sends about 9,000 such messages of 16 bytes (every rank that finishes
// computing activates the collective along its binomial tree, most of them duplicates). As SimGrid communications
// each cost an activity, a mailbox match, a route lookup, a max-min variable, a courier's context switch and the
// receiver's wait_any over all its listeners: about half of the run. What the model says of them is only a time.
//
// How: matching is per (source, destination, tag) in order, as SimGrid's mailboxes (and MPI) do it; the transfer
// starts when both sides have posted, the rendezvous SimGrid's communications have, and lasts what an unshared CM02
// flow of those bytes takes on the route (ControlCouriers.hpp's model: latency + bytes / narrowest link, bounded by
// the TCP window). At the arrival (TimedQueue.hpp: one kernel timer for all of them) both ends are marked ended
// (CommCompletions' numbering, so wait_any keeps choosing the first to end), which wakes the actor waiting on either.
// Messages due at one instant (hundreds at 4,096 ranks: the platform is symmetric) are delivered as a batch: their
// ends and the actors they wake are read a few dozen at a time before they are delivered one by one, in order, so
// that the cache misses overlap (deliver(), warm()). The actors they wake, and the exchanges they move on (a chain
// progressed in maestro: SimComm's KernelExchange), are woken and run after the whole batch, in the order of its ends.
// What is approximated: as with the couriers, the message takes no share of the links it crosses.
// What differs from a SimGrid communication: at an instant where several actors resume, one woken here runs in the
// order its message arrived (messages due at one instant: in the order they were sent), where SimGrid resumes
// actors in the order their communications finished.
#include <simgrid/s4u/Host.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "algorithms/comm/Comm.hpp"
#include "sim/simgrid/CacheTouch.hpp"
#include "sim/simgrid/CommCompletions.hpp"
#include "sim/simgrid/DirectFlows.hpp"
#include "sim/simgrid/HostRoute.hpp"
#include "sim/simgrid/InPlaceFifo.hpp"
#include "sim/simgrid/KeyTable.hpp"
#include "sim/simgrid/RouteSegments.hpp"
#include "sim/simgrid/TimedQueue.hpp"

namespace quorum {

class DirectMessages {
 public:
  // One end of a direct message, shared by its request and the matching state; given up by its request, it is
  // marked `watch.abandoned`.
  struct End {
    CommCompletions::Watch watch;
    std::unique_ptr<Message> delivered;  // a receive's message, once it arrived
  };

  // Whether a tag's channel is a control channel: every message on it goes direct (Tag.hpp).
  static bool carries(Tag tag);
  // Whether the network model allows it (CM02, as for ControlCouriers).
  static bool usable();

  // `routes`: where the routes are looked up; `flows`: where shared messages are timed (null: every message is
  // unshared). Both must outlive this object.
  DirectMessages(std::shared_ptr<CommCompletions> completions, RouteSegments& routes, DirectFlows* flows = nullptr);
  ~DirectMessages();
  DirectMessages(const DirectMessages&) = delete;
  DirectMessages& operator=(const DirectMessages&) = delete;

  // A message of `bytes` from `from` to `to` on the mailbox `key` (SimWorld::mailbox_key). `sender` is the send
  // request's end (ended when the message arrives), or null for a posted message. `shared`: the transfer shares
  // its links as a CM02 flow (DirectFlows.hpp) instead of taking the unshared time.
  void send(std::uint64_t key, const HostPair& hosts, std::unique_ptr<Message> message, double bytes,
            std::shared_ptr<End> sender, bool shared = false);
  // A receive posted on the mailbox `key`.
  void receive(std::uint64_t key, std::shared_ptr<End> receiver);
  // How many host pairs' unshared costs are kept before they are all forgotten (pair_cache_limit() of the platform's
  // hosts unless set).
  void limit_pairs(std::size_t pairs) { pair_limit_ = pairs; }

 private:
  struct InFlight {
    std::unique_ptr<Message> message;
    double duration_s;  // unshared
    std::shared_ptr<End> sender;
    HostPair hosts{};  // shared (DirectFlows times it): its route and bytes; hosts.from null when unshared
    double bytes = 0;
  };
  // Its first line holds the receivers' queue and the count of messages waiting; a message waiting in place takes the
  // next (a send or receive reads one line where a receive waits, two where a message does).
  struct alignas(kCacheLineBytes) Box {
    InPlaceFifo<std::shared_ptr<End>> receivers;  // posted, nothing sent yet
    InPlaceFifo<InFlight> unmatched;              // sent, no receive posted yet
  };
  std::uint32_t box_of(std::uint64_t key);
  void release_box_if_empty(std::uint64_t key, std::uint32_t index);
  const UnsharedFlowCost& route_cost(const HostPair& hosts);
  void start(InFlight message, std::shared_ptr<End> receiver);
  struct Delivery {
    InFlight message;
    std::shared_ptr<End> receiver;
  };
  void shared_arrived(std::span<const std::uint32_t> slots);
  void deliver(std::span<Delivery> due);
  static void warm(std::span<const Delivery> batch);
  void arrive(InFlight& message, const std::shared_ptr<End>& receiver);

  std::shared_ptr<CommCompletions> completions_;
  RouteSegments& route_segments_;
  DirectFlows* flows_;
  double tcp_gamma_;
  // The boxes apart from the table that finds them: a send or receive probes the table at a key it has not touched
  // for a while (a posted receive waits a step for its message), so each probe is a cache miss, and at 16,384 ranks
  // the table holds a quarter of a million keys. Slots of a key and an index (16 bytes, against 72 with the box in
  // them) make the table a quarter the size (16 MB there, against 75), so that more of it stays in the last-level
  // cache. A released box keeps its queues' storage for the next key (the free list is last in, first out, so that
  // box is also the likeliest in cache).
  KeyTable<std::uint32_t> box_index_;  // by mailbox key: 1 + the box's index in boxes_ (0: none yet)
  std::vector<Box> boxes_;
  std::vector<std::uint32_t> free_boxes_;
  KeyTable<UnsharedFlowCost> routes_;  // by HostPair::key; emptied at pair_limit_ pairs (pair_cache_limit())
  std::size_t pair_limit_;
  TimedQueue<Delivery> arrivals_;  // unshared messages in flight
  // Shared messages in flight, by the slot that DirectFlows tells their arrival with.
  std::vector<Delivery> shared_in_flight_;
  std::vector<std::uint32_t> free_shared_slots_;
  std::vector<Delivery> arriving_;  // shared_arrived()'s, kept allocated
};

}  // namespace quorum
