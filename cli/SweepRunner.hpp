#pragma once
// Runs sweep points in parallel child processes (SimGrid runs one engine per process), largest first, with a
// progress line on stderr (points done, failures, running, elapsed, ETA weighted by ranks x iterations). A point that
// fails is recorded (failure.json) and the others go on. SIGINT or SIGTERM stops the children and returns what is
// finished; running the same sweep again resumes it.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "sim/model/Scenario.hpp"
#include "sim/model/SweepResults.hpp"

namespace quorum::cli {

struct SweepJob {
  std::size_t index = 0;  // the point's index in the sweep
  std::string id;
  std::string dir;
  nlohmann::json record;  // point.json
  Scenario scenario;
  double cost = 1;        // ranks x iterations: what the ETA weighs
};

struct SweepRunStats {
  std::size_t total = 0;    // points of this share
  std::size_t skipped = 0;  // finished before this run
  std::size_t invalid = 0;  // rejected before running (bad scenario)
  std::size_t ok = 0, failed = 0;
  bool interrupted = false;
  double wall_s = 0;
};

// Runs jobs with at most `parallel` children. already_done and already_failed (invalid points) only count in the
// progress line. Returns the outcome of every job that ran, by point index.
std::map<std::size_t, PointOutcome> run_sweep_jobs(std::vector<SweepJob> jobs, int parallel, SweepRunStats& stats,
                                                   bool quiet);

}  // namespace quorum::cli
