// The vector the flow model keeps routes in (sim/model/InlineVector.hpp): up to N elements in place, more on the heap,
// the heap kept for reuse, and back in place once short again.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "sim/model/InlineVector.hpp"

namespace quorum {

TEST(InlineVector, KeepsUpToNInPlaceAndMoreOnTheHeap) {
  InlineVector<std::uint32_t, 4> v;
  EXPECT_TRUE(v.empty());
  const auto* const in_place = v.data();
  v.assign(4);
  EXPECT_EQ(v.data(), in_place);
  for (std::uint32_t i = 0; i < 4; ++i) v[i] = i + 1;
  EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0u), 10u);
  v.assign(6);  // past N: the heap, every element T{}
  EXPECT_NE(v.data(), in_place);
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0u), 0u);
  for (std::uint32_t i = 0; i < 6; ++i) v[i] = 10 * i;
  EXPECT_EQ(v[5], 50u);
  const auto* const heap = v.data();
  v.assign(5);  // still past N: the same heap storage
  EXPECT_EQ(v.data(), heap);
  EXPECT_EQ(v[4], 0u);
  v.assign(2);  // short again: in place
  EXPECT_EQ(v.data(), in_place);
  EXPECT_EQ(v.end() - v.begin(), 2);
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.begin(), v.end());
}

TEST(InlineVector, MovesWithItsContents) {
  InlineVector<int, 2> short_one, long_one;
  short_one.assign(2);
  short_one[1] = 7;
  long_one.assign(3);
  long_one[2] = 9;
  const InlineVector<int, 2> a = std::move(short_one), b = std::move(long_one);
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1], 7);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b[2], 9);
}

}  // namespace quorum
