#pragma once
// EAMSGD: asynchronous elastic averaging SGD with momentum (Zhang, Choromanska and LeCun, "Deep learning with Elastic
// Averaging SGD", NIPS 2015, Algorithm 2), the asynchronous baseline of the AD-PSGD paper (004, sec. 5.1.3, with
// parameter-server sharding, sec. 5.3).
//
// Ranks 0 .. servers-1 hold shards of the centre variable x~ (initialised to the common initial model) and do not
// train; every other rank is a worker with its own model x^i, which starts equal to x~. A worker's step t: its
// gradient at its model x (the snapshot of Algorithm 2); if tau divides t, the elastic exchange with x~:
//     x^i <- x^i - alpha (x - x~),    x~ <- x~ + alpha (x - x~)
// (the worker pushes x, the server computes e = alpha (x - x~) against its current centre, adds e to it and replies
// e, so each exchange is atomic at the server); then the momentum step with its gradient (the scenario's math: lr,
// heavy-ball momentum). alpha is the moving rate, by default beta / p with beta = 0.9 and p workers, as Zhang et al.
// recommend and the AD-PSGD paper set it. Between exchanges a worker trains alone, so with tau > 1 it talks to the
// servers tau times less often (the AD-PSGD paper's "communication period"). The exchange waits for the reply
// before the step ends (not overlapped with the next computation), as async_ps's push and pull do.
//
// After every worker's last step, every rank receives the final centre variable, the model EASGD trains: all ranks
// end with x~. Protocol, sharding and the service ranks are async_ps's (ShardServer.hpp); on one rank there is no
// server and the rank trains alone (plain SGD). Metrics: eamsgd.staleness (centre updates by other workers between a
// worker's exchanges), eamsgd.elastic_distance (per exchange and server shard: |x - x~|^2 before it).
#include <span>
#include <vector>

#include "algorithms/Algorithm.hpp"
#include "algorithms/collectives/Partition.hpp"

namespace quorum {

// The elastic exchange's arithmetic on one shard, in the float order both sides use: e_i = alpha (x_i - c_i), the
// centre c_i += e_i; writes e into `e` (resized, its capacity reused). The worker then subtracts e from its model.
void elastic_exchange(std::span<float> centre, std::span<const float> worker, float alpha, std::vector<float>& e);

class Eamsgd final : public Algorithm {
 public:
  Eamsgd(int servers, std::int64_t tau, double moving_rate)
      : servers_(servers), tau_(tau), moving_rate_(moving_rate) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  void serve(RankContext& ctx, const BlockPartition& part);
  void work(RankContext& ctx, const BlockPartition& part);
  int servers_;
  std::int64_t tau_;
  double moving_rate_;
};

}  // namespace quorum
