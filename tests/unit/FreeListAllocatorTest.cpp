// The allocator of the simulated requests and direct messages' ends (sim/simgrid/FreeListAllocator.hpp): a freed block
// serves the next allocation of its type, last freed first; shared objects made with it are built and destroyed as
// with make_shared; with a cache line's alignment, a shared object that fits a line with its counts lies in one.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/simgrid/FreeListAllocator.hpp"

namespace quorum {

namespace {

struct alignas(64) Wide {
  std::uint64_t words[9];
};

// With libstdc++'s counts (16 bytes), 48 in all: malloc alone would put such blocks 48 bytes apart, across lines.
struct Small {
  std::uint64_t words[4];
};

struct Counted {
  explicit Counted(int& alive) : alive_(alive) { ++alive_; }
  ~Counted() { --alive_; }
  int& alive_;
  int payload[5] = {1, 2, 3, 4, 5};
};

}  // namespace

TEST(FreeListAllocator, AFreedBlockServesTheNextAllocationLastFreedFirst) {
  FreeListAllocator<Wide> allocator;
  Wide* a = allocator.allocate(1);
  Wide* b = allocator.allocate(1);
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % alignof(Wide), 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % alignof(Wide), 0u);
  allocator.deallocate(a, 1);
  allocator.deallocate(b, 1);
  EXPECT_EQ(allocator.allocate(1), b);
  EXPECT_EQ(allocator.allocate(1), a);
  Wide* array = allocator.allocate(3);  // not one object: from operator new, back to it
  array[2].words[8] = 7;
  allocator.deallocate(array, 3);
  Wide* c = allocator.allocate(1);
  EXPECT_NE(c, array);
  for (Wide* p : {a, b, c}) allocator.deallocate(p, 1);
}

TEST(FreeListAllocator, SharedObjectsAreBuiltAndDestroyedAsWithMakeShared) {
  int alive = 0;
  std::vector<std::shared_ptr<Counted>> objects;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i)
      objects.push_back(std::allocate_shared<Counted>(FreeListAllocator<Counted>{}, alive));
    EXPECT_EQ(alive, 100);
    EXPECT_EQ(objects[99]->payload[4], 5);
    const Counted* last = objects.back().get();
    objects.clear();  // freed first to last
    EXPECT_EQ(alive, 0);
    const auto again = std::allocate_shared<Counted>(FreeListAllocator<Counted>{}, alive);
    EXPECT_EQ(again.get(), last);  // in the block freed last
    EXPECT_EQ(alive, 1);
  }
}

TEST(FreeListAllocator, WithALinesAlignmentEverySharedBlockStartsALine) {
  constexpr std::size_t kLine = 64;
  std::vector<std::shared_ptr<Small>> objects;
  for (int i = 0; i < 100; ++i) {
    objects.push_back(std::allocate_shared<Small>(FreeListAllocator<Small, kLine>{}));
    const auto at = reinterpret_cast<std::uintptr_t>(objects.back().get());
    // Its counts first, at the line's start (libstdc++), then the object, within the line.
    EXPECT_EQ(at % kLine, 2 * sizeof(void*)) << "object " << i;
    EXPECT_LE(at % kLine + sizeof(Small), kLine) << "object " << i;
  }
  // Freed and made again from the list: the same aligned block.
  const Small* last = objects.back().get();
  objects.clear();
  const auto again = std::allocate_shared<Small>(FreeListAllocator<Small, kLine>{});
  EXPECT_EQ(again.get(), last);
}

}  // namespace quorum
