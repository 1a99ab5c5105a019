#pragma once
// The eager-SGD paper's microbenchmark of partial collectives (002, sec. 7.1, Fig. 8/9) as an algorithm, so that it
// runs on any platform and backend: every iteration each rank computes (the workload's step time plus the
// imbalance; Fig. 8 uses linear_skew, rank r sleeps r ms), then times one collective, then (optionally) all ranks
// meet in a barrier before the next iteration. Reported: "latency_s" (per rank and iteration: the time inside the
// collective call; its mean is Fig. 9's average latency) and, through the collective, the number of active
// processes (mean_active_processes in summary.json). The reduced vector is the step's gradient (empty with math
// off, then only its simulated size counts), and every rank applies the mean of what it gets back, so with math on
// the benchmark also trains and its data path can be checked; with one rank it is plain SGD.
//
//   sync      synchronous allreduce (algorithm.allreduce: ring, recursive_doubling, rabenseifner)
//   solo      solo allreduce        (any rank triggers; recursive doubling)
//   majority  majority allreduce    (a random initiator per iteration; recursive doubling)
//   group     wait-avoiding group allreduce (groups of group_size, dynamic butterfly grouping)
#include "algorithms/Algorithm.hpp"
#include "algorithms/collectives/PartialAllreduce.hpp"

namespace quorum {

struct CollectiveBenchSettings {
  std::string collective = "solo";
  double message_bytes = 0;  // 0: the workload's full-model size
  int group_size = 1;
  bool barrier = true;
  PartialSchedule schedule = PartialSchedule::RecursiveDoubling;  // of solo, majority and group
};

class CollectiveBench final : public Algorithm {
 public:
  explicit CollectiveBench(CollectiveBenchSettings settings) : settings_(std::move(settings)) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  CollectiveBenchSettings settings_;
};

}  // namespace quorum
