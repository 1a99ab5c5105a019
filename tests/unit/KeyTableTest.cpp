#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>

#include "sim/simgrid/KeyTable.hpp"
#include "sim/simgrid/SimWorld.hpp"

namespace quorum {

// The table agrees with std::map over many keys shaped like the simulator's (destination, source, tag) keys,
// through several growths; absent keys stay absent.
TEST(KeyTable, AgreesWithAnOrderedMapThroughGrowths) {
  KeyTable<int> table;
  std::map<std::uint64_t, int> reference;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const int dst = static_cast<int>(rng() % 4096), src = static_cast<int>(rng() % 4097) - 1;
    const Tag tag = static_cast<Tag>(rng() % (Tag{1} << 23));
    const std::uint64_t key = SimWorld::mailbox_key(dst, src, tag);
    table.at(key) += i;
    reference[key] += i;
  }
  EXPECT_EQ(table.size(), reference.size());
  for (const auto& [key, value] : reference) {
    ASSERT_NE(table.find(key), nullptr);
    EXPECT_EQ(*table.find(key), value);
  }
  EXPECT_EQ(table.find(SimWorld::mailbox_key(5000, 3, 1)), nullptr);
}

// Keys that come and go, as message queues do: after every erase the table still agrees with std::map, and it
// holds only the keys present.
TEST(KeyTable, ErasedKeysAreGoneAndTheOthersStayFindable) {
  KeyTable<int> table;
  std::map<std::uint64_t, int> reference;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50000; ++i) {
    // A small key space, so erases hit present keys and probe chains overlap.
    const std::uint64_t key = SimWorld::mailbox_key(static_cast<int>(rng() % 64), static_cast<int>(rng() % 64), 5);
    if (rng() % 3 == 0) {
      table.erase(key);
      reference.erase(key);
    } else {
      table.at(key) = i;
      reference[key] = i;
    }
    if (i % 997 == 0) {
      ASSERT_EQ(table.size(), reference.size());
      for (const auto& [k, v] : reference) {
        ASSERT_NE(table.find(k), nullptr);
        EXPECT_EQ(*table.find(k), v);
      }
    }
  }
  for (const auto& [k, v] : reference) table.erase(k);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.find(SimWorld::mailbox_key(1, 1, 5)), nullptr);
}

// Values that own resources move with their slot when the table grows.
TEST(KeyTable, MovesOwningValuesWhenItGrows) {
  KeyTable<std::unique_ptr<int>> table;
  for (int i = 0; i < 1000; ++i) table.at(static_cast<std::uint64_t>(i) << 24) = std::make_unique<int>(i);
  for (int i = 0; i < 1000; ++i) {
    auto* slot = table.find(static_cast<std::uint64_t>(i) << 24);
    ASSERT_NE(slot, nullptr);
    ASSERT_NE(*slot, nullptr);
    EXPECT_EQ(**slot, i);
  }
  KeyTable<int> empty;
  EXPECT_EQ(empty.find(0), nullptr);
}

// A cleared table, as a bounded route cache is emptied: no key is left, owned values are released, and the same
// keys go in again with new values.
TEST(KeyTable, AClearedTableHoldsNoKeyAndFillsAgain) {
  KeyTable<std::shared_ptr<int>> table;
  const auto owned = std::make_shared<int>(7);
  for (int i = 0; i < 500; ++i) table.at(static_cast<std::uint64_t>(i) * 977) = owned;
  EXPECT_EQ(owned.use_count(), 501);
  table.clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(owned.use_count(), 1);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(table.find(static_cast<std::uint64_t>(i) * 977), nullptr);
  for (int i = 0; i < 500; i += 2) table.at(static_cast<std::uint64_t>(i) * 977) = std::make_shared<int>(i);
  EXPECT_EQ(table.size(), 250u);
  for (int i = 0; i < 500; ++i) {
    const auto* slot = table.find(static_cast<std::uint64_t>(i) * 977);
    if (i % 2 == 1) {
      EXPECT_EQ(slot, nullptr);
      continue;
    }
    ASSERT_NE(slot, nullptr);
    EXPECT_EQ(**slot, i);
  }
}

}  // namespace quorum
