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

// A list in order and entries to add, in order or not, empty or not (ids distinct across both): merged, they are in
// std::sort's order of all of them.
TEST(LevelIdSort, MergesEntriesIntoAnOrderedListAsSortingThemAllDoes) {
  std::mt19937_64 rng(5);
  LevelIdSort<Entry> sorter;
  const auto level = [](const Entry& e) { return e.first; };
  const auto id = [](const Entry& e) { return e.second; };
  for (const int levels : {1, 3, 20}) {
    for (const std::size_t count : {0u, 1u, 40u, 900u}) {
      for (const std::size_t added_count : {0u, 1u, 25u, 600u}) {
        for (const bool added_in_order : {false, true}) {
          const std::vector<Entry> all = random_entries(rng, count + added_count, 100000, levels);
          std::vector<Entry> sorted(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(count));
          std::vector<Entry> added(all.begin() + static_cast<std::ptrdiff_t>(count), all.end());
          std::sort(sorted.begin(), sorted.end());
          if (added_in_order) std::sort(added.begin(), added.end());
          std::vector<Entry> expected = all;
          std::sort(expected.begin(), expected.end());
          sorter.merge_into(sorted, added, level, id);
          ASSERT_EQ(sorted, expected) << levels << " levels, " << count << " in order, " << added_count << " added";
        }
      }
    }
  }
}

}  // namespace quorum
