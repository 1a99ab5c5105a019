#pragma once
// Prague's Partial All-Reduce, P-Reduce (sec. 3.2): the members of a group replace their models by the group's
// average (synchronisation matrix F^G: 1/|G| between members, identity elsewhere; doubly stochastic). It is a
// synchronous allreduce over the group, here the ring of algorithms/collectives (members in ascending rank order,
// so the ranks of a node are ring neighbours), on its own channel so it never mixes with other collectives; a
// backend with native group collectives (NCCL communicators, as Prague uses) may take it over.
#include <vector>

#include "algorithms/RankContext.hpp"

namespace quorum {

// Averages ctx.trainer.params() over `members` (which must contain this rank); nothing to do for one member.
void p_reduce_average(RankContext& ctx, const std::vector<int>& members);

}  // namespace quorum
