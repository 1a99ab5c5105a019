#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "sim/model/DistinctIdSort.hpp"

namespace quorum {

// Few ids (a comparison sort), many within a narrow range (the bitmap, its first and last words partly used) and many
// spread wide (a comparison sort again): std::sort's order, every id kept.
TEST(DistinctIdSort, OrdersDistinctIdsAsStdSortDoes) {
  std::mt19937_64 rng(5);
  DistinctIdSort sorter;
  for (const std::uint32_t low : {0u, 13u, 4000000000u}) {
    for (const std::uint32_t span : {40u, 1000u, 70000u, 200000000u}) {
      for (const std::size_t count : {0u, 1u, 5u, 31u, 32u, 33u, 300u, 5000u}) {
        if (count > span) continue;
        std::vector<std::uint32_t> ids;
        while (ids.size() < count) {
          const auto id = static_cast<std::uint32_t>(low + rng() % span);
          if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
        }
        std::vector<std::uint32_t> expected = ids;
        std::sort(expected.begin(), expected.end());
        sorter.sort(ids);
        ASSERT_EQ(ids, expected) << count << " ids from " << low << " within " << span;
      }
    }
  }
}

// The ids that bound the range land on the bitmap's first and last bits.
TEST(DistinctIdSort, KeepsTheIdsAtTheEdgesOfTheirWords) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = 64; id < 64 * 4; id += 3) ids.push_back(64 * 4 + 63 - id);
  ids.push_back(63);
  ids.push_back(64 * 4 + 64);
  std::vector<std::uint32_t> expected = ids;
  std::sort(expected.begin(), expected.end());
  DistinctIdSort sorter;
  sorter.sort(ids);
  EXPECT_EQ(ids, expected);
}

// An id given twice is kept once (the bitmap holds a set).
TEST(DistinctIdSort, KeepsAnIdGivenTwiceOnce) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = 100; id > 0; --id) ids.push_back(id);
  ids.push_back(50);
  DistinctIdSort sorter;
  sorter.sort(ids);
  ASSERT_EQ(ids.size(), 100u);
  for (std::uint32_t i = 0; i < 100; ++i) EXPECT_EQ(ids[i], i + 1);
}

}  // namespace quorum
