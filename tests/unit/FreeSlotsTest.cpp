// The index pools share (sim/model/FreeSlots.hpp): a new element at the end while none is free, then the last freed
// first, with the element as it was left.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/FreeSlots.hpp"

namespace quorum {

TEST(FreeSlots, AppendsWhileNoneIsFreeThenReusesTheLastFreedFirst) {
  std::vector<std::string> pool;
  std::vector<std::uint32_t> free;
  EXPECT_EQ(take_free_slot(pool, free, "test"), 0u);
  EXPECT_EQ(take_free_slot(pool, free, "test"), 1u);
  EXPECT_EQ(take_free_slot(pool, free, "test"), 2u);
  ASSERT_EQ(pool.size(), 3u);
  EXPECT_TRUE(pool[2].empty());  // a new element is value-initialized
  pool[0] = "zero";
  free.push_back(0);
  free.push_back(2);
  EXPECT_EQ(take_free_slot(pool, free, "test"), 2u);
  EXPECT_EQ(take_free_slot(pool, free, "test"), 0u);
  EXPECT_EQ(pool[0], "zero");  // reused as it was left: its storage with it
  EXPECT_TRUE(free.empty());
  EXPECT_EQ(take_free_slot(pool, free, "test"), 3u);
  EXPECT_EQ(pool.size(), 4u);
}

}  // namespace quorum
