#include "sim/simgrid/PostedSends.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>

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
  std::vector<sg4::CommPtr> one(1);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < sends_.size(); ++i) {
    sg4::CommPtr& send = sends_[i];
    try {
      // test() only reports; a wait is what removes a finished send from this actor's list in SimGrid 3.32, and
      // on a finished send it returns at once (Comm::wait() would not reach the kernel once test() said done).
      if (send->get_state() != sg4::Activity::State::FAILED && !send->test()) {
        sends_[kept++] = std::move(send);
        continue;
      }
      one[0] = send;
      sg4::Comm::wait_any(one);
    } catch (const simgrid::Exception&) {
      // A receiver cancelled a receive this message was already moving to: dropped, as a detached one would be.
    }
  }
  sends_.resize(kept);
}

void PostedSends::drain_as_daemon() {
  reap();
  if (sends_.empty()) return;
  sg4::Actor::self()->daemonize();
  while (!sends_.empty()) {
    try {
      sends_.erase(sends_.begin() + sg4::Comm::wait_any(sends_));
    } catch (const simgrid::Exception&) {
      reap();  // drops the failed one (see reap)
    }
  }
}

}  // namespace quorum
