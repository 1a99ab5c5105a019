#pragma once
// The reference that progress in maestro (SimComm's KernelExchange and KernelSchedule) is compared with: an agent whose
// waits are observed runs its own loop instead. For tests that run one program both ways and expect the same events.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>

#include "algorithms/comm/Comm.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum::testing {

// Records nothing: setting it is what makes the agent run its own loop.
class IgnoredWaits final : public WaitObserver {
 public:
  void blocked(int, int, double, double) override {}
};

// Runs program(comm, observed) on a star of `ranks`, progressed in maestro (observed false) and by the agent's loop
// (true); expects both to end, every rank's returned "end" and "blocked" and the run's end time to be equal exactly
// (the same events at the same instants), then hands each rank's two results to per_rank for the test's own checks.
inline void expect_maestro_gives_agent_loops_times(
    int ranks, const std::function<nlohmann::json(Comm&, bool observed)>& program,
    const std::function<void(const nlohmann::json& kernel, const nlohmann::json& loop)>& per_rank) {
  const auto kernel = run_simulated(star(ranks), [&program](Comm& comm) { return program(comm, false); });
  const auto loop = run_simulated(star(ranks), [&program](Comm& comm) { return program(comm, true); });
  ASSERT_TRUE(kernel.ok) << kernel.error;
  ASSERT_TRUE(loop.ok) << loop.error;
  for (int r = 0; r < ranks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const auto& k = kernel.per_rank[static_cast<std::size_t>(r)];
    const auto& l = loop.per_rank[static_cast<std::size_t>(r)];
    EXPECT_EQ(l["end"].get<double>(), k["end"].get<double>());
    EXPECT_EQ(l["blocked"].get<double>(), k["blocked"].get<double>());
    per_rank(k, l);
  }
  EXPECT_EQ(kernel.end_time, loop.end_time);
}

}  // namespace quorum::testing
