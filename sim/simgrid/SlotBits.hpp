#pragma once
// A set of slot numbers (0 .. size - 1) as bits, with the least found a word of 64 slots at a time: WaitSet's slots
// done and ended, where a parameter server's wait picks the first of a backlog of thousands once per push.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace quorum {

class SlotBits {
 public:
  // Slots from `size` on are dropped; new ones are not in the set.
  void resize(std::size_t size) {
    words_.resize((size + 63) / 64, 0);
    if (size % 64 != 0) words_.back() &= (std::uint64_t{1} << (size % 64)) - 1;
    size_ = size;
  }
  std::size_t size() const { return size_; }
  void set(std::size_t slot) { words_[slot / 64] |= std::uint64_t{1} << (slot % 64); }
  void reset(std::size_t slot) { words_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64)); }
  bool test(std::size_t slot) const { return (words_[slot / 64] >> (slot % 64)) & 1; }
  // The least slot in the set, or size() if none.
  std::size_t first() const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      if (words_[w] != 0) return w * 64 + static_cast<std::size_t>(std::countr_zero(words_[w]));
    return size_;
  }
  // Calls f(slot) for every slot in the set, in ascending order.
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
};

}  // namespace quorum
