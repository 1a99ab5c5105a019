#pragma once
// AD-PSGD (Lian et al., ICML 2018): asynchronous decentralised SGD with atomic pairwise model averaging.
//
// Every rank runs two agents (the paper's Appendix A: a computation thread and a communication thread):
//  - the computation agent (the rank's main agent) loops over its steps: it reads a snapshot of the model, computes
//    the gradient at it (the modelled compute time passes), and applies the update to the model. It never waits
//    for communication;
//  - the communication agent averages the model with neighbours of the bipartite ring (BipartiteRing.hpp). On an
//    active (even) rank it starts one averaging whenever at least one new gradient has been applied since the last
//    one (Algorithm 1's averaging per update; a busy network makes it average less often, never the computation
//    wait): it picks a passive neighbour at random, sends its model and receives the neighbour's. On a passive
//    (odd) rank it serves the requests of its active neighbours one at a time, until each has said goodbye.
//
// Atomicity. Each side applies the averaging as a delta against the snapshot it sent: x_i += (s_j - s_i) / 2 and
// x_j += (s_i - s_j) / 2. The pair's sum is unchanged exactly, updates the computation agents apply meanwhile are
// kept rather than overwritten, and since a passive rank serves one request at a time and an active rank has one
// averaging in flight, the averagings touching a rank are serialised: the result is that of an atomic averaging of
// (s_i, s_j) followed by the concurrent gradient updates, i.e. the doubly stochastic W_k of the paper's analysis.
// The bipartite split is what makes the serialisation deadlock-free; anything else is refused (BipartiteRing).
#include <string>

#include "algorithms/Algorithm.hpp"

namespace quorum {

class AdPsgd final : public Algorithm {
 public:
  explicit AdPsgd(std::string hops) : hops_(std::move(hops)) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  std::string hops_;
};

}  // namespace quorum
