#pragma once
// Asynchronous parameter-server SGD, the centralised asynchronous baseline of the eager-SGD paper's Table 2
// ("Asynch-PS", TensorFlow's asynchronous parameter server; also the PS of the AD-PSGD and Prague papers).
//
// Ranks 0 .. servers-1 are servers and do not train; ranks servers .. P-1 are the P - servers workers. The model is
// cut into `servers` shards (in the same proportions for the real values and the simulated bytes); server s owns
// shard s and its optimiser state. A worker's step: compute the gradient at its copy of the model, push each shard
// of the gradient to its server, and receive that server's current shard back. A server applies every gradient
// as it arrives (no barrier, no averaging: a gradient may be stale by the updates of other workers in between,
// reported as the histogram async_ps.staleness) and replies with its updated shard. All workers push to the same
// server links, which is what makes the centralised design a bottleneck at scale. The protocol (pushes, replies,
// the last push, the final model) is ShardServer.hpp's, shared with EAMSGD.
//
// After the last step of every worker, the servers send the final model to every rank, so all ranks end with the
// same model (this exchange is not part of the timed steps). The summary counts only workers: throughput, samples,
// waits and iterations.csv cover ranks servers .. P-1 (AlgorithmInfo::service_ranks); to run W workers with one
// server, give the platform W + 1 ranks. On one rank there is no one to serve: the rank trains alone (plain SGD).
#include "algorithms/Algorithm.hpp"
#include "algorithms/collectives/Partition.hpp"

namespace quorum {

class AsyncParameterServer final : public Algorithm {
 public:
  explicit AsyncParameterServer(int servers) : servers_(servers) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  void serve(RankContext& ctx, const BlockPartition& part);
  void work(RankContext& ctx, const BlockPartition& part);
  int servers_;
};

}  // namespace quorum
