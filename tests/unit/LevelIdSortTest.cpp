#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "sim/model/LevelIdSort.hpp"

namespace quorum {

namespace {

using Entry = std::pair<double, std::uint32_t>;  // (level, id), as std::sort orders them

// `count` entries of distinct ids below `id_span`, their levels drawn from `levels` values.
std::vector<Entry> random_entries(std::mt19937_64& rng, std::size_t count, std::uint32_t id_span, int levels) {
  std::vector<std::uint32_t> ids;
  while (ids.size() < count) {
    const auto id = static_cast<std::uint32_t>(rng() % id_span);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  std::vector<Entry> entries;
  for (const auto id : ids)
    entries.push_back({1.0 + static_cast<double>(rng() % static_cast<unsigned>(levels)) / 3, id});
  return entries;
}

}  // namespace

// Every mix: one level (the ids alone order), a few (the distribution), more than kFewLevels (the comparison sort),
// ids within one byte and spanning all four; the order is std::sort's on (level, id).
TEST(LevelIdSort, OrdersByLevelThenIdAsAComparisonSortDoes) {
  std::mt19937_64 rng(3);
  LevelIdSort<Entry> sorter;
  const auto level = [](const Entry& e) { return e.first; };
  const auto id = [](const Entry& e) { return e.second; };
  for (const int levels : {1, 2, 5, 8, 9, 40}) {
    for (const std::uint32_t id_span : {200u, 70000u, 4000000000u}) {
      for (const std::size_t count : {0u, 1u, 2u, 37u, 1500u}) {
        if (count > id_span) continue;
        std::vector<Entry> entries = random_entries(rng, count, id_span, levels);
        std::vector<Entry> expected = entries;
        std::sort(expected.begin(), expected.end());
        sorter.sort(entries, level, id);
        ASSERT_EQ(entries, expected) << levels << " levels, ids below " << id_span << ", " << count << " entries";
      }
    }
  }
}

}  // namespace quorum
