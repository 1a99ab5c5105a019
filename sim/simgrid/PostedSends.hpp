#pragma once
// The fire-and-forget sends (Comm::post) of one actor, kept as ordinary SimGrid sends instead of detached ones.
//
// Why: SimGrid 3.32 keeps every detached communication in one engine-wide list and removes a finished one with a
// scan of the whole list, so a burst of n detached messages in flight costs O(n^2). Solo activation at P = 1,024
// puts ~10,000 activation messages in flight at one instant, and that scan took 40% of a WAGMA-SGD run. Ordinary
// sends sit in their own actor's list instead (a handful), so the sender reaps the finished ones itself.
//
// What is simulated does not change: a posted message is the same rendezvous send over the same route. A sender
// that ends with sends still pending (an activation its child never consumes) hands them to a daemon phase: the
// actor reports its work done, becomes a daemon and waits for them, so they are delivered if anybody receives
// them, and dropped when the simulation ends, as a detached message would be.
#include <simgrid/s4u/Comm.hpp>

#include <cstddef>
#include <vector>

namespace quorum {

class PostedSends {
 public:
  // Keeps a started send; reaps the finished ones once enough have piled up.
  void add(simgrid::s4u::CommPtr send);
  // Waits (no simulated time) for every finished send, so SimGrid drops it from this actor's list.
  void reap();
  // At the end of the actor's work: if sends are still pending, makes this actor a daemon and waits for them.
  void drain_as_daemon();

 private:
  std::vector<simgrid::s4u::CommPtr> sends_;
  std::size_t reap_at_ = kFirstReap;
  static constexpr std::size_t kFirstReap = 16;
};

}  // namespace quorum
