#include "sim/simgrid/PostedSends.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <simgrid/Exception.hpp>

#include <algorithm>

namespace quorum {

namespace sg4 = simgrid::s4u;

void PostedSends::add(sg4::CommPtr send) {
  sends_.push_back(std::move(send));
  if (sends_.size() < reap_at_) return;
  reap();
  // Sends still pending (unmatched) stay; reap again when as many new ones have come, so the cost stays linear.
  reap_at_ = std::max(kFirstReap, 2 * sends_.size());
}

void PostedSends::reap() {
  while (!sends_.empty()) {
    try {
      // test_any only reports; a wait is what removes a finished send from this actor's list in SimGrid 3.32, and
      // wait_any returns at once (no simulated time) when one has finished.
      if (sg4::Comm::test_any(sends_) < 0) return;
      erase(sg4::Comm::wait_any(sends_));
    } catch (const simgrid::Exception&) {
      drop_failed();
    }
  }
}

void PostedSends::drain_as_daemon() {
  reap();
  if (sends_.empty()) return;
  sg4::Actor::self()->daemonize();
  while (!sends_.empty()) {
    try {
      erase(sg4::Comm::wait_any(sends_));
    } catch (const simgrid::Exception&) {
      drop_failed();
    }
  }
}

// A receiver cancelled a receive its message was already moving to: the message is dropped, as a detached one
// would be. wait_any does not say which send failed: the failed one is marked FAILED, and test() reports the
// finished ones without throwing, so every send that is no longer pending goes.
void PostedSends::drop_failed() {
  std::erase_if(sends_, [](const sg4::CommPtr& send) {
    return send->get_state() == sg4::Activity::State::FAILED || send->test();
  });
}

void PostedSends::erase(ssize_t i) { sends_.erase(sends_.begin() + i); }

}  // namespace quorum
