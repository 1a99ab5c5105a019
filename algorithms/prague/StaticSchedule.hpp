#pragma once
// Prague's decentralised static scheduler (sec. 4.2, Fig. 9 and 10): a rule every worker evaluates locally to find
// its group of the step, conflict-free by construction (the groups of a step are disjoint), periodic, and aware of
// the node structure. Ranks k*n .. k*n+n-1 are the local workers 0..n-1 of node k (n ranks per node, N nodes).
//
// n >= 2, period 4 (Fig. 10 for n = 4, generalised):
//   phase 0: local worker 0 of every node forms one inter-node group; the other local workers pair up from the top
//            (n-2 with n-1, n-4 with n-3, ...); with n = 4: LW2-LW3, LW1 idle.
//   phase 1: all local workers of the node (intra-node group).
//   phase 2: local worker 1 pairs with local worker 1 of the opposite node of the ring (node k + N/2; with N odd,
//            node k < (N-1)/2 pairs with k + (N-1)/2 and the last node idles); the others {0, 2, .., n-1} pair from
//            the outside in (0 with n-1, 2 with n-2, ...); with n = 4: LW0-LW3, LW2 idle.
//   phase 3: as phase 1.
// n = 1 (one worker per node), period 2: the two perfect matchings of the ring, (0,1)(2,3).. then (1,2)(3,4)..; with
// an odd number of ranks one rank idles in each.
//
// Fig. 10 gives the rule only for n = 4; the other cases are this project's generalisation with the same shape.
#include <cstdint>
#include <vector>

namespace quorum {

// Members of rank's group at this step, ascending (rank included); a single member means no synchronisation.
std::vector<int> static_group(int rank, std::int64_t step, int world_size, int ranks_per_node);
int static_schedule_period(int ranks_per_node);

}  // namespace quorum
