#include "sim/simgrid/ControlCouriers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <string>

#include "sim/simgrid/HostRoute.hpp"
#include "sim/simgrid/PostedSends.hpp"
#include "sim/simgrid/WakeUp.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

namespace {

struct Parcel {
  sg4::Mailbox* mailbox;
  void* payload;
  double bytes;     // what the transfer carries (at least 1, so that its rate bound applies)
  double rate_Bps;  // the bound that makes it last latency + bytes / narrowest bandwidth
};

// Whether a message to the same host crosses a loopback of its own (one link, no latency), as the courier's must:
// a route up and down the host's own links would share them with its flows.
bool has_own_loopback(sg4::Host* host) {
  const HostRoute self = route_between(host, host);
  return self.links.size() == 1 && self.latency_s == 0;
}

}  // namespace

struct ControlCouriers::Courier {
  std::deque<Parcel> queue;
  WakeUp wake_up;  // when a parcel comes to an empty queue
  PostedSends sends;

  void run() {
    sg4::Actor::self()->daemonize();
    for (;;) {
      while (!queue.empty()) {
        const Parcel p = queue.front();
        queue.pop_front();
        auto comm = p.mailbox->put_init(p.payload, static_cast<std::uint64_t>(p.bytes));
        comm->set_rate(p.rate_Bps);
        comm->start();
        sends.add(std::move(comm));
      }
      wake_up.wait();
    }
  }
};

ControlCouriers::ControlCouriers() : tcp_gamma_(simgrid::config::get_value<double>("network/TCP-gamma")) {}

bool ControlCouriers::usable() { return simgrid::config::get_value<std::string>("network/model") == "CM02"; }

bool ControlCouriers::post(sg4::Host* from, sg4::Host* to, sg4::Mailbox* to_mailbox, void* payload, double bytes) {
  if (from == to) return false;  // already on the host's own loopback
  auto [it, added] = couriers_.try_emplace(to);
  if (added && has_own_loopback(to)) {
    it->second = std::make_shared<Courier>();
    sg4::Actor::create("courier@" + to->get_name(), to, [c = it->second] { c->run(); });
  }
  Courier* courier = it->second.get();
  if (courier == nullptr) return false;
  const double carried = std::max(1.0, std::ceil(bytes));  // whole bytes, as the transfer carries them
  const double duration = unshared_flow_cost(from, to, tcp_gamma_).duration(bytes);
  courier->queue.push_back(Parcel{to_mailbox, payload, carried, duration > 0 ? carried / duration : -1.0});
  courier->wake_up.wake();
  return true;
}

}  // namespace quorum
