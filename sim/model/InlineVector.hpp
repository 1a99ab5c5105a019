#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace quorum {

// A vector of trivially copyable elements that keeps up to N of them in place, and only longer contents on the
// heap. The flow model keeps each flow's route here: a flow is read cold several times in its life at thousands of
// ranks, and its links then come on the flow's own cache lines instead of behind pointers.
template <class T, std::size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // Makes it n elements, element i being make(i); what it held is dropped. Heap storage, once taken, is kept for
  // reuse.
  template <typename Make>
  void assign(std::size_t n, Make make) {
    if (n > N && n > heap_capacity_) {
      heap_ = std::make_unique<T[]>(n);
      heap_capacity_ = static_cast<std::uint32_t>(n);
    }
    size_ = static_cast<std::uint32_t>(n);
    T* elements = data();
    for (std::size_t i = 0; i < n; ++i) elements[i] = make(i);
  }
  // n elements, each T{}.
  void assign(std::size_t n) {
    assign(n, [](std::size_t) { return T{}; });
  }
  void clear() { size_ = 0; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return size_ > N ? heap_.get() : in_place_; }
  const T* data() const { return size_ > N ? heap_.get() : in_place_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

 private:
  T in_place_[N]{};
  std::uint32_t size_ = 0;
  std::uint32_t heap_capacity_ = 0;
  std::unique_ptr<T[]> heap_;
};

}  // namespace quorum
