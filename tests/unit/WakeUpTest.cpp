// An actor asleep on a WakeUp (sim/simgrid/WakeUp.hpp) resumes at the instant it is woken, whether maestro wakes it
// (a kernel timer, as the network model's callbacks and DirectMessages' arrivals do) or another actor; a wake that
// comes while it is not waiting is dropped; and it can wait again and again. These check the simcall that WakeUp
// blocks in and the SimGrid function it answers it with, which it names by its exported symbol.
#include "sim/simgrid/WakeUp.hpp"

#include <gtest/gtest.h>

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <malloc.h>

#include <vector>

#include "tests/support/SimHarness.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

namespace {

sg4::Host* one_host() {
  auto* zone = sg4::create_full_zone("zone");
  sg4::Host* host = zone->create_host("host", 1e9);
  zone->seal();
  return host;
}

// Runs `scenario` (which creates actors on the host) in a fresh engine and returns the times it records.
std::vector<double> times_of(const std::function<void(sg4::Host*, std::vector<double>&)>& scenario) {
  const testing::EngineChildResult child = testing::in_engine_child([&] {
    std::vector<double> times;
    scenario(one_host(), times);
    sg4::Engine::get_instance()->run();
    return nlohmann::json(times);
  });
  EXPECT_TRUE(child.ok) << child.error;
  return child.ok ? child.value.get<std::vector<double>>() : std::vector<double>{};
}

}  // namespace

TEST(WakeUp, MaestroWakesTheWaitingActorAtTheTimersInstantEveryTime) {
  const auto times = times_of([](sg4::Host* host, std::vector<double>& record) {
    static WakeUp wake_up;
    for (const double at : {1.5, 2.25, 4.0}) simgrid::kernel::timer::Timer::set(at, [] { wake_up.wake(); });
    sg4::Actor::create("sleeper", host, [&record] {
      for (int i = 0; i < 3; ++i) {
        wake_up.wait();
        record.push_back(sg4::Engine::get_clock());
      }
    });
  });
  EXPECT_EQ(times, (std::vector<double>{1.5, 2.25, 4.0}));
}

TEST(WakeUp, AnotherActorWakesItAndAWakeWhileNotWaitingIsDropped) {
  const auto times = times_of([](sg4::Host* host, std::vector<double>& record) {
    static WakeUp wake_up;
    sg4::Actor::create("sleeper", host, [&record] {
      sg4::this_actor::sleep_for(1.0);  // the wake at 0.5 comes before it waits: dropped
      wake_up.wait();
      record.push_back(sg4::Engine::get_clock());
      wake_up.wait();
      record.push_back(sg4::Engine::get_clock());
    });
    sg4::Actor::create("waker", host, [] {
      sg4::this_actor::sleep_for(0.5);
      wake_up.wake();
      sg4::this_actor::sleep_for(2.5);  // 3.0
      wake_up.wake();
      sg4::this_actor::sleep_for(1.0);  // 4.0
      wake_up.wake();
    });
  });
  EXPECT_EQ(times, (std::vector<double>{3.0, 4.0}));
}

// warm() only reads (ahead of a batch of wakes): reading the descriptor stays inside SimGrid's allocation of it, a
// warm() while the actor does not wait does nothing, and one while it waits leaves the wake that follows as it was.
TEST(WakeUp, WarmReadsInsideTheDescriptorAndLeavesTheWakeAsItWas) {
  const auto times = times_of([](sg4::Host* host, std::vector<double>& record) {
    static WakeUp wake_up;
    simgrid::kernel::timer::Timer::set(0.5, [] { wake_up.warm(); });  // not waiting yet
    simgrid::kernel::timer::Timer::set(1.5, [] {
      wake_up.warm();
      wake_up.warm();
      wake_up.wake();
    });
    sg4::Actor::create("sleeper", host, [&record] {
      record.push_back(static_cast<double>(malloc_usable_size(sg4::Actor::self()->get_impl())));
      sg4::this_actor::sleep_for(1.0);
      wake_up.wait();
      record.push_back(sg4::Engine::get_clock());
    });
  });
  ASSERT_EQ(times.size(), 2u);
  EXPECT_GE(times[0], static_cast<double>(WakeUp::kDescriptorBytes));
  EXPECT_EQ(times[1], 1.5);
}

}  // namespace quorum
