#pragma once
// WAGMA-SGD (WAGMA paper 000, sec. 4, Algorithm 2): every rank takes a local SGD step, then averages its model
// within its group of the step (S ranks, butterfly dynamic grouping, Algorithm 1) with the wait-avoiding group
// allreduce: the first rank to finish triggers the averaging in every group, and a rank still computing
// contributes its last model. A rank whose fresh model made it into the group sum takes sum / S; a late rank
// averages its fresh model with the sum it finds, (sum + W') / (S + 1). Every tau steps all ranks average their
// models with a synchronous allreduce, which bounds staleness and divergence.
//
// The paper's switches (sec. 4): wait_avoiding (alpha) uses the wait-avoiding group allreduce; blocking_groups
// (beta) uses a plain synchronous allreduce inside each group; both false degrade to local SGD with period tau;
// both true is not allowed. S = O(1) with tau = 0 (never) gives AD-PSGD-like (alpha) or D-PSGD/SGP-like (beta)
// settings. dynamic_groups = false keeps the groups of step 0 (the paper's fixed-group ablation).
//
// A rank several group steps behind averages, at each step t, with the sum of step t's group (Algorithm 2, line 9:
// W_t^sum), which the group allreduce keeps until the rank asks for it (late_result = own_version; at most tau - 1
// sums, the group steps between two global averages). late_result = newest averages with the newest completed sum
// instead, again at every step: the single receive buffer of fflib2 that the reference implementation reads.
#include "algorithms/Algorithm.hpp"
#include "algorithms/collectives/ButterflyGrouping.hpp"
#include "algorithms/collectives/PartialAllreduce.hpp"

namespace quorum {

struct WagmaSettings {
  int group_size = 1;
  std::int64_t tau = 10;  // 0: never synchronise globally
  bool wait_avoiding = true;
  bool blocking_groups = false;
  bool dynamic_groups = true;
  bool membership_csv = false;
  PartialSchedule schedule = PartialSchedule::RecursiveDoubling;  // of the wait-avoiding group allreduce
  LateResultPolicy late_result = LateResultPolicy::OwnVersion;
};

class WagmaSgd final : public Algorithm {
 public:
  explicit WagmaSgd(WagmaSettings settings) : settings_(settings) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

  // Whether step t ends with the synchronous global average.
  static bool is_sync_step(std::int64_t step, std::int64_t tau) { return tau > 0 && (step + 1) % tau == 0; }

 private:
  WagmaSettings settings_;
};

// sqrt(P) rounded up to a power of two: 2^ceil(log2(P) / 2) (P = 64: 8, P = 8: 4, P = 2: 2).
int default_group_size(int world_size);

}  // namespace quorum
