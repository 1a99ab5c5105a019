#pragma once
// A hash table from 64-bit keys to values, stored flat: open addressing with linear probing in one array, so a
// lookup usually touches one cache line. The simulator looks up a (destination, source, tag) entry for every message
// (SimWorld's mailboxes, DirectMessages' queues); at thousands of ranks there are hundreds of thousands of such
// keys, and std::unordered_map's bucket array plus one heap node per key costs two or three cache misses a lookup.
//
// References returned by `at` and `find` stay valid only until the next insertion or erase (a growth moves every
// value, an erase may move others). In actor code that includes any simcall in between: other actors run during it.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace quorum {

template <typename Value>
class KeyTable {
 public:
  // All ones is the empty slot's mark; neither SimWorld::mailbox_key (a destination rank below 2^20),
  // HostPair::key_of (host indices below 2^31) nor an object's address (DirectFlows' links) makes it.
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  // The value under `key`, default-constructed on first use.
  Value& at(std::uint64_t key) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(key);
    while (slots_[i].key != key) {
      if (slots_[i].key == kEmpty) {
        slots_[i].key = key;
        ++size_;
        break;
      }
      i = (i + 1) & mask_;
    }
    return slots_[i].value;
  }

  // The value under `key`, or null.
  Value* find(std::uint64_t key) {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key == kEmpty) return nullptr;
    }
  }

  // Removes `key` and its value, if present. Linear probing's backward shift: the entries after it that probed past
  // its slot move back, so no tombstones are left and lookups stay short in a table whose keys come and go.
  void erase(std::uint64_t key) {
    if (slots_.empty()) return;
    std::size_t i = home(key);
    while (slots_[i].key != key) {
      if (slots_[i].key == kEmpty) return;
      i = (i + 1) & mask_;
    }
    for (std::size_t j = (i + 1) & mask_; slots_[j].key != kEmpty; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].key);
      // The entry at j may move to i only if its home is not cyclically within (i, j].
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = std::move(slots_[j]);
      i = j;
    }
    slots_[i].key = kEmpty;
    slots_[i].value = Value{};
    --size_;
  }

  // Removes every key, keeping the slots' memory: a cache bounded by emptying it when full fills the same slots again.
  void clear() {
    if (size_ == 0) return;
    for (Slot& s : slots_) s = Slot{};
    size_ = 0;
  }

  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = kEmpty;
    Value value{};
  };

  // Fibonacci hashing: the keys' information sits in a few bit fields, which the multiplication spreads.
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 64 : 2 * old.size();
    slots_ = std::vector<Slot>(capacity);
    mask_ = capacity - 1;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
    for (Slot& s : old) {
      if (s.key == kEmpty) continue;
      std::size_t i = home(s.key);
      while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
      slots_[i].key = s.key;
      slots_[i].value = std::move(s.value);
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
};

}  // namespace quorum
