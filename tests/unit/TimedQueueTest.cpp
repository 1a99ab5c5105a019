// Events due at simulated dates (sim/simgrid/TimedQueue.hpp, what delivers DirectMessages' unshared messages): each
// date's events run at that date, in one batch, in the order they were added, however the dates were interleaved;
// an event added while a batch runs, at that date, runs in a batch of its own after it; a date earlier than every
// pending one moves the alarm there; 0 and -0 are one date.
#include "sim/simgrid/TimedQueue.hpp"

#include <gtest/gtest.h>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "tests/support/SimHarness.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

namespace {

// Runs `adds` in an actor at time 0 against a queue whose batches are recorded as [date, first id, second id, ...];
// `on_run` sees each event as it runs (with the queue, to add more). Returns the batches.
nlohmann::json batches_of(const std::function<void(TimedQueue<int>&)>& adds,
                          const std::function<void(TimedQueue<int>&, int)>& on_run = nullptr) {
  const testing::EngineChildResult child = testing::in_engine_child([&] {
    auto* zone = sg4::create_full_zone("zone");
    sg4::Host* host = zone->create_host("host", 1e9);
    zone->seal();
    nlohmann::json batches = nlohmann::json::array();
    std::unique_ptr<TimedQueue<int>> queue;
    queue = std::make_unique<TimedQueue<int>>([&](std::span<int> due) {
      nlohmann::json batch = nlohmann::json::array({sg4::Engine::get_clock()});
      for (const int id : due) batch.push_back(id);
      batches.push_back(batch);
      if (on_run)
        for (const int id : due) on_run(*queue, id);
    });
    sg4::Actor::create("adder", host, [&] { adds(*queue); });
    sg4::Engine::get_instance()->run();
    batches.push_back(static_cast<int>(queue->size()));  // left pending: none
    queue.reset();
    return batches;
  });
  EXPECT_TRUE(child.ok) << child.error;
  return child.ok ? child.value : nlohmann::json();
}

}  // namespace

TEST(TimedQueue, EachDatesEventsRunAtItInOneBatchInTheOrderAdded) {
  const auto batches = batches_of([](TimedQueue<int>& q) {
    const double dates[] = {2.0, 1.0, 2.0, 1.0, 3.0, 2.0, 0.5};
    for (int id = 0; id < 7; ++id) q.add(dates[id], id);
    EXPECT_EQ(q.size(), 7u);
  });
  EXPECT_EQ(batches, nlohmann::json::parse("[[0.5, 6], [1.0, 1, 3], [2.0, 0, 2, 5], [3.0, 4], 0]"));
}

TEST(TimedQueue, EventsAddedWhileABatchRunsComeAfterIt) {
  // Event 0 adds 10 at its own date and 11 later; event 1 adds 12 at event 0's date too, and 13 before 11's.
  const auto batches = batches_of(
      [](TimedQueue<int>& q) {
        q.add(1.0, 0);
        q.add(1.0, 1);
        q.add(4.0, 2);
      },
      [](TimedQueue<int>& q, int id) {
        if (id == 0) {
          q.add(1.0, 10);
          q.add(3.0, 11);
        }
        if (id == 1) {
          q.add(1.0, 12);
          q.add(2.0, 13);
        }
      });
  EXPECT_EQ(batches, nlohmann::json::parse("[[1.0, 0, 1], [1.0, 10, 12], [2.0, 13], [3.0, 11], [4.0, 2], 0]"));
}

TEST(TimedQueue, ZeroAndMinusZeroAreOneDate) {
  const auto batches = batches_of([](TimedQueue<int>& q) {
    q.add(0.0, 0);
    q.add(-0.0, 1);
    q.add(0.0, 2);
  });
  EXPECT_EQ(batches, nlohmann::json::parse("[[0.0, 0, 1, 2], 0]"));
}

}  // namespace quorum
