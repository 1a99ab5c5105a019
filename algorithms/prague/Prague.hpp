#pragma once
// Prague (Luo et al., ASPLOS 2020): asynchronous decentralised training with Partial All-Reduce (Fig. 7). Every step
// a worker computes and applies its gradient, then averages its model with a group of workers by P-Reduce
// (PartialAllreduce.hpp). Where groups come from is the mode:
//
//  random, smart  a Group Generator agent (GroupGenerator.hpp) runs on the host of rank `generator_rank`. A worker
//                 sends its request as the step starts, so the round trip overlaps the computation (sec. 4.1; with
//                 request_at = sync_point it asks only once its computation is done, a variant the paper does not
//                 evaluate: the groups a slow worker forms then do not hold their members while it computes), and
//                 at the end of the step runs the groups the generator activates for it, in the order they come,
//                 until the one answering its request has run (in random mode a worker may also have been drafted
//                 into other workers' groups; it runs those at the same point). After its last step it tells the
//                 generator and keeps running the groups still formed for it until released.
//  static         no generator: every worker evaluates the conflict-free periodic schedule locally
//                 (StaticSchedule.hpp; Fig. 9/10) and runs its group of the step, if any.
//
// Metrics: prague.generator_wait_s (per step, time a worker waits for activations at its synchronisation point:
// lock conflicts, members that have not asked yet, the round trip), prague.preduce_s, prague.groups_per_step,
// averaging_partners; from the generator: prague.conflict (1 for a group that was ready but had to wait for a
// member in another group; its mean is the conflict rate), prague.queue_wait_s, prague.group_s,
// prague.group_size, and the table prague_groups.csv (one row per group).
#include "algorithms/Algorithm.hpp"
#include "algorithms/prague/GroupGenerator.hpp"

namespace quorum {

struct PragueOptions {
  std::string mode = "smart";  // random | smart | static
  int group_size = 3;
  std::int64_t c_thres = 5;
  bool inter_intra = true;
  int generator_rank = 0;
  double generator_service_s = 0;
  std::string request_at = "step_start";  // step_start | sync_point
};

class Prague final : public Algorithm {
 public:
  explicit Prague(PragueOptions options) : options_(std::move(options)) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  void run_static(RankContext& ctx);
  void run_with_generator(RankContext& ctx);
  PragueOptions options_;
};

}  // namespace quorum
