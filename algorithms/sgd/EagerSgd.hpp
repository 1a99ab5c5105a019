#pragma once
// eager-SGD (eager-SGD paper 002, sec. 5, Algorithm 2 and Fig. 7): gradient averaging with a partial allreduce
// (solo: the first rank to finish its gradient triggers the step's allreduce; majority: the step's randomly drawn
// initiator does, so about half the ranks contribute fresh gradients). A rank that is still computing contributes
// what its send buffer holds; its gradient, once computed, stays in the buffer and is summed with its next one
// (stale gradients are accumulated, not lost). Every rank applies the sum divided by P. Optionally the models are
// averaged with a synchronous allreduce every model_sync_every steps (sec. 5: it bounds the drift of the replicas),
// and every collective_sync_every-th gradient allreduce can run synchronously, as the reference implementation's
// "solo limiter" does (fflib2, every 33rd execution): without it nobody ever waits for a late rank, so ranks that
// were delayed stay behind and, with cheap collectives, drift apart until only the fastest contributes fresh data.
// The model averaging is on by default at the paper's period (kPaperModelSyncEvery).
//
// A rank several versions behind applies, at step t, the gradient sum of version t (late_result = own_version, Fig.
// 7: "P0 updates the weights of step t + 1 using G1_t stored in the receive buffer"), so every rank applies every
// version's sum once and in order. The collective keeps the sums a late rank has not applied yet, as many as its
// synchronisation allows: collective_sync_every - 1, or model_sync_every, else 32 (fflib2's limiter span).
// late_result = newest applies the newest completed sum instead, again if nothing newer completed: the single
// receive buffer of fflib2 that the reference Deep500 operator copies out at every step (sec. 5: "only the latest
// data in the receive buffer can be seen, which results in different weights on different processes").
#include "algorithms/Algorithm.hpp"
#include "algorithms/collectives/PartialAllreduce.hpp"

namespace quorum {

// The eager-SGD paper's model-averaging period: "model synchronization at every 10 epochs" (sec. 7.2.2, ResNet-50
// on ImageNet; sec. 5: "we only synchronize the models every few epochs"). At its 64 processes x batch 128 = 8,192
// per step, 10 epochs of ImageNet-1k's 1,281,167 training images are 10 x 1,281,167 / 8,192 = 1,563.9 steps.
inline constexpr std::int64_t kPaperModelSyncEvery = 1564;

class EagerSgd final : public Algorithm {
 public:
  EagerSgd(ActivationPolicy collective, PartialSchedule schedule, std::int64_t model_sync_every,
           std::int64_t collective_sync_every, LateResultPolicy late_result, bool overlap = false,
           double bucket_bytes = 0)
      : collective_(collective),
        schedule_(schedule),
        model_sync_every_(model_sync_every),
        collective_sync_every_(collective_sync_every),
        late_result_(late_result),
        overlap_(overlap),
        bucket_bytes_(bucket_bytes) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  // The collective's configuration for a vector of `values` real values standing for `logical_bytes`.
  PartialAllreduceConfig config(const RankContext& ctx, double logical_bytes, std::size_t values) const;
  // overlap: one partial allreduce per gradient bucket, each submitted as soon as its layers' backward part has
  // been charged (the paper's per-layer partial allreduces during backprop, sec. 3 and Fig. 5).
  void run_overlapped(RankContext& ctx);
  // Applies a step's gradient sum / P (has_result false: the version's sum was dropped, nothing to apply).
  void apply_sum(RankContext& ctx, std::vector<float>& sum, bool has_result, bool reused) const;
  // Every model_sync_every steps: the models' synchronous average (sec. 7.2.2).
  void average_models(RankContext& ctx, std::int64_t step) const;
  ActivationPolicy collective_;
  PartialSchedule schedule_;
  std::int64_t model_sync_every_;
  std::int64_t collective_sync_every_;
  LateResultPolicy late_result_;
  bool overlap_;
  double bucket_bytes_;
};

// Results a late rank may have to keep: no rank's agent completes a version past a synchronous point (a synchronous
// version every collective_sync_every, a model average every model_sync_every steps) before the rank reaches it.
std::int64_t eager_kept_results(std::int64_t model_sync_every, std::int64_t collective_sync_every);

}  // namespace quorum
