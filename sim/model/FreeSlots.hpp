#pragma once
// Pools whose elements are addressed by a 32-bit index and reused once freed (the flow model's flows and classes,
// the direct messages' mailboxes and messages in flight, timed events): a simulation's storage then stays at what is
// in use at once, not what was ever used, and a freed element's own storage is reused with it.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace quorum {

// An index of `pool` to use: the last one freed (its element as it was left), or else a new element, value-
// initialized, at the end. `what` names the pool in the error past 2^32 - 1 elements.
template <typename T>
std::uint32_t take_free_slot(std::vector<T>& pool, std::vector<std::uint32_t>& free, const char* what) {
  if (!free.empty()) {
    const std::uint32_t slot = free.back();
    free.pop_back();
    return slot;
  }
  if (pool.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error(std::string(what) + ": more than 2^32 - 1 in use at once");
  pool.emplace_back();
  return static_cast<std::uint32_t>(pool.size() - 1);
}

}  // namespace quorum
