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
#include "algorithms/Algorithm.hpp"
#include "algorithms/collectives/PartialAllreduce.hpp"

namespace quorum {

class EagerSgd final : public Algorithm {
 public:
  EagerSgd(ActivationPolicy collective, PartialSchedule schedule, std::int64_t model_sync_every,
           std::int64_t collective_sync_every)
      : collective_(collective),
        schedule_(schedule),
        model_sync_every_(model_sync_every),
        collective_sync_every_(collective_sync_every) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  ActivationPolicy collective_;
  PartialSchedule schedule_;
  std::int64_t model_sync_every_;
  std::int64_t collective_sync_every_;
};

}  // namespace quorum
