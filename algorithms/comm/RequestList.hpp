#pragma once
// A list of requests waited on again and again with Comm::wait_any, one or a few of them replaced between waits: a
// parameter server's receives from every worker, one replaced per push. It notes which positions changed since the
// last wait, so that a backend can take up those alone instead of reading the whole list at every wait (the
// simulator: a wait costs the changes, not P; a backend that has no use for them reads the whole list). wait_any
// returns a position; retired positions (null) are never chosen, and the others' order is the order of choice, as in
// a list without them.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/comm/Comm.hpp"

namespace quorum {

class RequestList {
 public:
  RequestList() : id_(next_id()) {}
  RequestList(const RequestList&) = delete;
  RequestList& operator=(const RequestList&) = delete;

  // Positions, retired ones included, and the requests still waited on.
  std::size_t size() const { return requests_.size(); }
  std::size_t live() const { return requests_.size() - retired_; }
  // A retired position holds null.
  const RequestPtr& operator[](std::size_t i) const { return requests_[i]; }
  std::span<const RequestPtr> all() const { return requests_; }

  void push_back(RequestPtr request) {
    changed_.push_back(static_cast<std::uint32_t>(requests_.size()));
    if (!request) ++retired_;
    requests_.push_back(std::move(request));
  }
  void set(std::size_t i, RequestPtr request) {
    RequestPtr& place = requests_.at(i);
    retired_ += static_cast<std::size_t>(!request) - static_cast<std::size_t>(!place);
    place = std::move(request);
    changed_.push_back(static_cast<std::uint32_t>(i));
  }
  // Takes position i out of the waits for good (a worker that is done), every other request keeping its place: one
  // change for a backend to take up, where erase moves every later one.
  void retire(std::size_t i) { set(i, nullptr); }
  // The requests after i move down one place: every position from i on changed.
  void erase(std::size_t i) {
    if (!requests_.at(i)) --retired_;
    requests_.erase(requests_.begin() + static_cast<std::ptrdiff_t>(i));
    changed_from_ = std::min(changed_from_, i);
  }

  // For backends. Which list this is (never reused within a process), and how many waits it has had: a backend
  // that took up the changes at wait number `waits()` of list `id()` knows the list as it was then, and needs only
  // the changes since to know it now.
  std::uint64_t id() const { return id_; }
  std::uint64_t waits() const { return waits_; }
  // Positions changed since the last wait, in the order of their changes (a position may come more than once; some
  // may be past the end after an erase): those listed, and every one from changed_from() on.
  std::span<const std::uint32_t> changed() const { return changed_; }
  std::size_t changed_from() const { return changed_from_; }
  // Called by Comm::wait_any once a wait on this list has returned.
  void waited() {
    changed_.clear();
    changed_from_ = kNone;
    ++waits_;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> ids{0};
    return ++ids;
  }
  std::vector<RequestPtr> requests_;
  std::size_t retired_ = 0;  // null positions
  std::vector<std::uint32_t> changed_;
  std::size_t changed_from_ = kNone;
  std::uint64_t id_;
  std::uint64_t waits_ = 0;
};

}  // namespace quorum
