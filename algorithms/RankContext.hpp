#pragma once
// Everything one rank's algorithm instance sees: its Comm, its Trainer (the real math), the run's settings, its
// parameters, and where to report per-step timings and metrics.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/AlgorithmParams.hpp"
#include "algorithms/GradientLayout.hpp"
#include "algorithms/collectives/SyncAllreduce.hpp"
#include "algorithms/comm/Comm.hpp"
#include "algorithms/comm/Group.hpp"
#include "kernels/Trainer.hpp"

namespace quorum {

struct RunSettings {
  std::int64_t iterations = 0;  // local steps every rank performs
  std::uint64_t seed = 1;
  int world_size = 1;
  // Ranks 0 .. world_size - 1, built once per run and shared by its ranks: a copy per rank costs P ints each, 1 GB
  // at 16,384 ranks.
  Group world;
  double model_bytes = 0;       // simulated size of the full model/gradient (workload parameters x 4 bytes)
  int ranks_per_node = 1;       // ranks sharing a node (GPUs per node); ranks r*k .. r*k+k-1 share node r
  AllreduceOptions allreduce{};
  GradientLayout gradients;     // the workload's layers in backward order (empty: unknown, one layer)
};

// One row of iterations.csv.
struct StepRecord {
  int rank = 0;
  std::int64_t step = 0;
  double start_s = 0;    // when the step began
  double compute_s = 0;  // modelled compute time charged (workload + straggler)
  double comm_s = 0;     // from the end of compute to the end of the step
  double wait_s = 0;     // part of the step the main agent spent blocked in communication
};

// A span of a rank's timeline, for --trace (Chrome trace). agent 0 is the main agent, 1 its progress agent.
struct TraceSpan {
  int rank = 0;
  int agent = 0;
  std::string category;  // compute, comm, wait, activation, group_generator, ...
  std::string name;
  double start_s = 0, end_s = 0;
};

// Implemented by the backends' drivers. All calls may come from any agent of any rank.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void step_done(const StepRecord& record) = 0;
  // A named sample aggregated into summary.json's "metrics" (count, mean, min, max); e.g. contributors per
  // collective.
  virtual void sample(int rank, const std::string& metric, double value) = 0;
  // One count in bucket of a named histogram, summary.json's "histograms" (e.g. staleness in steps).
  virtual void histogram(int rank, const std::string& name, std::int64_t bucket) = 0;
  // One row of a named extra table, written as <table>.csv (columns from the first row), e.g. group membership.
  virtual void table_row(const std::string& table, const std::vector<std::pair<std::string, double>>& row) = 0;
  // Whether timeline spans are being recorded; span() is cheap to skip when not.
  virtual bool tracing() const = 0;
  virtual void span(const TraceSpan& span) = 0;
};

struct RankContext {
  Comm& comm;
  Trainer& trainer;
  const RunSettings& run;
  const AlgorithmParams& params;
  StepObserver& observer;
};

}  // namespace quorum
