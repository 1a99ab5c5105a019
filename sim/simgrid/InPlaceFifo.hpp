#pragma once
// A FIFO that is almost always empty or holds one element (a mailbox's posted receives or waiting messages,
// DirectMessages.hpp): that one in place, in the owner's cache lines, so that a send or a receive reads them and no
// other (a vector's storage was one more line, read again after the other ranks' events had evicted it); more behind
// it in a vector read from `head`.
//
// Its storage is bounded both ways. A queue that never drains drops its taken front once that is half the vector, else
// it would keep every element it ever held. A queue grown by a burst (thousands of requests reach Prague's generator at
// one instant) lets its vector go when drained: a mailbox is reused for other keys once empty, and kept, the vector
// went with it, so that every mailbox that ever served the generator held one and a long run's memory grew with them.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace quorum {

template <typename T>
struct InPlaceFifo {
  static constexpr std::uint32_t kSpare = 64;  // room `more` may keep when drained; taken elements it may hold
  static constexpr std::uint32_t kInPlace = ~std::uint32_t{0};  // `head` while the front is `first`
  std::uint32_t size = 0;
  std::uint32_t head = 0;  // kInPlace, or the front's index in `more`
  T first{};
  std::vector<T> more;

  bool empty() const { return size == 0; }
  T& front() { return head == kInPlace ? first : more[head]; }
  void pop_front() {
    if (head == kInPlace) {
      first = T{};
      head = 0;  // `more` holds the rest, if any: they came after it
    } else {
      ++head;
    }
    if (--size == 0 && head != 0) {  // drained from `more`
      if (more.capacity() > kSpare)
        more = std::vector<T>{};
      else
        more.clear();
      head = 0;
    } else if (head >= kSpare && 2 * std::size_t{head} >= more.size()) {
      // Moves the `size` elements left, no more than the `head` taken: amortised, one move per element taken.
      more.erase(more.begin(), more.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
  }
  void push_back(T item) {
    if (size++ == 0) {
      first = std::move(item);
      head = kInPlace;
    } else {
      more.push_back(std::move(item));
    }
  }
};

}  // namespace quorum
