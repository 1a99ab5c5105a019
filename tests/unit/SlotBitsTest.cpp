// The slots done and ended of a wait set, as bits (sim/simgrid/SlotBits.hpp): the least found a word at a time.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "sim/simgrid/SlotBits.hpp"

namespace quorum {

TEST(SlotBits, FindsTheLeastSlotAndEveryOneInOrder) {
  SlotBits bits;
  bits.resize(200);
  EXPECT_EQ(bits.first(), 200u);  // none: size()
  for (const std::size_t s : {150u, 63u, 64u, 199u, 5u}) bits.set(s);
  EXPECT_EQ(bits.first(), 5u);
  bits.reset(5);
  EXPECT_EQ(bits.first(), 63u);
  EXPECT_TRUE(bits.test(64));
  EXPECT_FALSE(bits.test(65));
  std::vector<std::size_t> all;
  bits.for_each([&](std::size_t s) { all.push_back(s); });
  EXPECT_EQ(all, (std::vector<std::size_t>{63, 64, 150, 199}));
}

TEST(SlotBits, ShrinkingDropsTheSlotsPastTheEndForGood) {
  SlotBits bits;
  bits.resize(130);
  bits.set(129);
  bits.set(70);
  bits.resize(100);  // 129 goes
  EXPECT_EQ(bits.size(), 100u);
  bits.reset(70);
  EXPECT_EQ(bits.first(), 100u);
  bits.resize(130);  // back: 129 is not in the set again
  EXPECT_EQ(bits.first(), 130u);
  bits.resize(65);
  bits.set(64);
  bits.resize(64);  // a whole word goes
  EXPECT_EQ(bits.first(), 64u);
  bits.resize(128);
  EXPECT_EQ(bits.first(), 128u);
}

}  // namespace quorum
