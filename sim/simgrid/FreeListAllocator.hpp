#pragma once
// An allocator for objects made and freed by the thousand a simulated step (a request and its direct message's end
// for every send and receive): a freed block goes on a free list of its type and serves the next allocation, last
// freed first, without a call into malloc. The list is the thread's own (the simulation runs on one thread); its
// blocks are given back when the thread ends. `Align` aligns every block to it (a cache line: an object that fits one
// is then read in one miss); at least T's own alignment.
#include <algorithm>
#include <cstddef>
#include <new>

namespace quorum {

template <typename T, std::size_t Align = alignof(T)>
class FreeListAllocator {
 public:
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = FreeListAllocator<U, Align>;
  };

  FreeListAllocator() = default;
  template <typename U>
  explicit FreeListAllocator(const FreeListAllocator<U, Align>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n == 1) {
      List& list = free_list();
      if (list.head != nullptr) {
        Block* block = list.head;
        list.head = block->next;
        return reinterpret_cast<T*>(block);
      }
    }
    return static_cast<T*>(::operator new(n * kBlockBytes, std::align_val_t{kAlign}));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n != 1) {
      ::operator delete(p, std::align_val_t{kAlign});
      return;
    }
    List& list = free_list();
    Block* block = reinterpret_cast<Block*>(p);
    block->next = list.head;
    list.head = block;
  }

  template <typename U>
  bool operator==(const FreeListAllocator<U, Align>&) const noexcept {
    return true;
  }

 private:
  union alignas(std::max(Align, alignof(T))) Block {
    Block* next;
    alignas(T) std::byte object[sizeof(T)];
  };
  static constexpr std::size_t kBlockBytes = sizeof(Block);
  static constexpr std::size_t kAlign = alignof(Block);
  struct List {
    Block* head = nullptr;
    ~List() {
      while (head != nullptr) {
        Block* next = head->next;
        ::operator delete(head, std::align_val_t{kAlign});
        head = next;
      }
    }
  };
  static List& free_list() {
    thread_local List list;
    return list;
  }
};

}  // namespace quorum
