#pragma once
// Control messages (a few bytes: activations, requests, group-generator traffic) delivered at their route's latency
// and narrowest bandwidth, without entering SimGrid's max-min system.
//
// Why: SimGrid shares bandwidth by solving one max-min system over every flow that shares a link with another,
// re-solved whenever a flow starts or ends. Where traffic crosses pooled links (adaptive dragonfly routing, random
// Prague groups) that system holds every flow of the machine, so each 16-byte activation costs two solves of it:
// 70% of a 1,024-rank Prague run went there. What such a message changes in that system is nothing measurable: it
// lasts a latency, and its share of a link, bytes x flows / bandwidth, is a few nanoseconds.
//
// How: the sender hands the message to a courier actor on the destination host, which sends it to the receiver over
// that host's loopback (a link of its own, 0 latency) at a rate bound that makes the transfer last exactly the
// route's latency + bytes / its narrowest link, as an unshared CM02 flow would. The rendezvous is SimGrid's as
// before (the transfer starts when both sides have posted), and the courier keeps each sender's order per mailbox.
// What is approximated: the message takes no share of the links it crosses, and is not slowed by the flows on them.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <memory>
#include <unordered_map>

#include "algorithms/comm/Payload.hpp"

namespace quorum {

class ControlCouriers {
 public:
  // Messages of at most this many bytes may take the courier (eight 64-bit integers: an activation or a request is
  // two, a group generator's reply three plus one per member).
  static constexpr double kMaxBytes = 64;
  // Whether a posted message is one a courier may carry: at most kMaxBytes, and no floats.
  static bool fits(double bytes, const Payload& payload) { return bytes <= kMaxBytes && payload.values.empty(); }

  ControlCouriers();

  // Whether the network model allows it: CM02, whose lone flow takes latency + bytes / bandwidth (no latency or
  // bandwidth factor, no weight-S, unless a platform sets them: none of quorum's does).
  static bool usable();

  // Sends `payload` (what the receiver's get yields) of `bytes` from `from` to the mailbox `to_mailbox`, whose
  // receiver runs on `to`, without blocking; the courier owns the send. False (nothing sent) when `to` is `from`
  // or has no loopback of its own (a platform's choice): the message then has to go as an ordinary flow.
  bool post(simgrid::s4u::Host* from, simgrid::s4u::Host* to, simgrid::s4u::Mailbox* to_mailbox, void* payload,
            double bytes);

  struct Courier;

 private:
  double tcp_gamma_;  // SimGrid's network/TCP-gamma, which bounds every CM02 flow's rate
  std::unordered_map<simgrid::s4u::Host*, std::shared_ptr<Courier>> couriers_;  // null: the host has no loopback
};

}  // namespace quorum
