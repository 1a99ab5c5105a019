// The mailboxes' queue (sim/simgrid/InPlaceFifo.hpp): first in, first out against std::deque through random pushes,
// pops and bursts; storage bounded for a queue that never drains, and let go when a burst drains.
#include <gtest/gtest.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <random>

#include "sim/simgrid/InPlaceFifo.hpp"

namespace quorum {

TEST(InPlaceFifo, GivesElementsInTheOrderPushedThroughBurstsAndDrains) {
  InPlaceFifo<std::unique_ptr<int>> fifo;
  std::deque<int> reference;
  std::mt19937 rng(11);
  int next = 0;
  for (int round = 0; round < 2000; ++round) {
    // Mostly one or two at a time, now and then a burst of hundreds, and pops that often drain the queue.
    const int pushes = round % 97 == 0 ? 500 : static_cast<int>(rng() % 3);
    for (int i = 0; i < pushes; ++i) {
      fifo.push_back(std::make_unique<int>(next));
      reference.push_back(next++);
    }
    const int pops = static_cast<int>(rng() % 4) + (round % 97 == 50 ? 600 : 0);
    for (int i = 0; i < pops && !reference.empty(); ++i) {
      ASSERT_FALSE(fifo.empty());
      ASSERT_NE(fifo.front(), nullptr);
      ASSERT_EQ(*fifo.front(), reference.front());
      fifo.pop_front();
      reference.pop_front();
    }
    ASSERT_EQ(fifo.size, reference.size());
    ASSERT_EQ(fifo.empty(), reference.empty());
  }
}

// A queue that never drains (a backlog of 10 kept while a million go through) holds a few times its backlog and the
// spare room, not every element it ever held.
TEST(InPlaceFifo, AQueueThatNeverDrainsKeepsItsStorageBounded) {
  InPlaceFifo<int> fifo;
  for (int i = 0; i < 10; ++i) fifo.push_back(i);
  for (int i = 10; i < 1000000; ++i) {
    fifo.push_back(i);
    ASSERT_EQ(fifo.front(), i - 10);
    fifo.pop_front();
  }
  EXPECT_EQ(fifo.size, 10u);
  EXPECT_LE(fifo.more.capacity(), 4u * (10 + InPlaceFifo<int>::kSpare));
}

// A burst drained lets its vector go (the mailbox is then reused for other keys); a few elements' room is kept.
TEST(InPlaceFifo, ADrainedBurstLetsItsStorageGo) {
  InPlaceFifo<int> fifo;
  for (int i = 0; i < 10000; ++i) fifo.push_back(i);
  for (int i = 0; i < 10000; ++i) fifo.pop_front();
  EXPECT_TRUE(fifo.empty());
  EXPECT_EQ(fifo.more.capacity(), 0u);
  for (int i = 0; i < 5; ++i) fifo.push_back(i);
  for (int i = 0; i < 5; ++i) fifo.pop_front();
  EXPECT_TRUE(fifo.empty());
  EXPECT_LE(fifo.more.capacity(), std::size_t{InPlaceFifo<int>::kSpare});
  fifo.push_back(7);
  EXPECT_EQ(fifo.front(), 7);
}

}  // namespace quorum
