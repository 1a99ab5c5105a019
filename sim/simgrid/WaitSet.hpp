#pragma once
// A wait_any's registrations kept from one call to the next.
//
// Why: a parameter server calls wait_any on its P - 1 receives once per push, and replaces only the receive that
// ended. Registering the waiter on every request, and reading every request's flags, at every call visited P objects
// scattered in memory per push: O(P^2) visits per step (at 4,096 ranks, 38% of an async_ps step).
//
// How: each request of the list is registered at its position (its slot); a call compares the list with the
// registered one (pointers, side by side in memory) and registers again only what moved, or, for a RequestList kept
// between waits, takes up only the positions the list says changed (SimComm::do_wait_any_list: the comparison itself
// was still P reads per push, 60% of an async_ps step at 4,096 ranks). A registered request tells its slot when it
// ends (CommCompletions) or completes (done), so the choice is made from those slots alone, with the rule of
// SimComm's other wait_any: the first request in list order that is done, else the first in list order that has
// ended, else the first to end.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/simgrid/CommCompletions.hpp"
#include "sim/simgrid/SlotBits.hpp"
#include "sim/simgrid/WakeUp.hpp"

namespace quorum {

class WaitSet {
 public:
  using Watch = CommCompletions::Watch;
  WaitSet() = default;
  WaitSet(const WaitSet&) = delete;
  WaitSet& operator=(const WaitSet&) = delete;
  ~WaitSet() { clear(); }

  // Whether slot `slot` holds `request` (an identity, never dereferenced).
  bool holds(std::size_t slot, const void* request) const {
    return slot < entries_.size() && entries_[slot].request == request;
  }
  // Slot `slot` now holds `request`, whose end is noted in `watch`, done or not. A request that sat in another slot
  // leaves it (end_sync tells a move from a request named twice).
  void put(std::size_t slot, const void* request, Watch* watch, bool done) {
    if (slot >= entries_.size()) resize(slot + 1);
    const auto s = static_cast<std::uint32_t>(slot);
    release(s);
    if (watch->set == this && entries_[watch->slot].request == request) {
      moved_.push_back(watch->slot);  // a move, unless no other request takes that slot by end_sync
      release(watch->slot);
    }
    entries_[s].request = request;
    entries_[s].watch = watch;
    watch->set = this;
    watch->slot = s;
    if (done) this->done(s);
    if (watch->ended) ended_.set(s);
  }
  // Called once every slot of a list of `size` requests is put or held: slots past it are dropped. Returns false if
  // a request left a slot of the list that nothing took over, i.e. the list names it twice (then the caller must not
  // use the set for it).
  bool end_sync(std::size_t size) {
    for (std::size_t s = size; s < entries_.size(); ++s) release(static_cast<std::uint32_t>(s));
    if (entries_.size() > size) resize(size);
    bool unique = true;
    for (const std::uint32_t s : moved_)
      if (s < size && entries_[s].request == nullptr) unique = false;
    moved_.clear();
    return unique;
  }
  // Forgets every registration.
  void clear() {
    for (std::uint32_t s = 0; s < entries_.size(); ++s) release(s);
    resize(0);
  }

  // From the request: it ended (the caller then wakes wake_up(), at once or in its turn: CommCompletions), completed,
  // or is destroyed.
  void ended(std::uint32_t slot) { ended_.set(slot); }
  void done(std::uint32_t slot) { done_.set(slot); }
  void drop(std::uint32_t slot) { release(slot); }

  // The slot to return, or none yet: the first done, else the first ended.
  bool choose(std::size_t& slot) const {
    slot = done_.first();
    if (slot >= entries_.size()) slot = ended_.first();
    return slot < entries_.size();
  }
  // After a wait: of the slots that ended (none had before it), the first to end.
  std::size_t first_to_end() const {
    std::size_t best = entries_.size();
    std::uint64_t order = 0;
    ended_.for_each([&](std::size_t s) {
      const Entry& e = entries_[s];
      if (best == entries_.size() || e.watch->order < order) {
        best = s;
        order = e.watch->order;
      }
    });
    return best;
  }
  WakeUp& wake_up() { return wake_; }

 private:
  struct Entry {
    const void* request = nullptr;
    Watch* watch = nullptr;
  };
  // The slots and their bits, `size` of each.
  void resize(std::size_t size) {
    entries_.resize(size);
    done_.resize(size);
    ended_.resize(size);
  }
  // Slot `s` holds nothing from now on; its request's watch forgets the set if it still points here.
  void release(std::uint32_t s) {
    if (s >= entries_.size()) return;
    Entry& e = entries_[s];
    if (e.watch != nullptr && e.watch->set == this && e.watch->slot == s) e.watch->set = nullptr;
    e.request = nullptr;
    e.watch = nullptr;
    done_.reset(s);
    ended_.reset(s);
  }

  std::vector<Entry> entries_;
  // The slots done and the slots ended, as bits: a server's backlog of pushes that arrived is thousands of slots, and
  // the first of them is found a word (64 slots) at a time instead of slot by slot.
  SlotBits done_, ended_;
  std::vector<std::uint32_t> moved_;
  WakeUp wake_;
};

}  // namespace quorum
