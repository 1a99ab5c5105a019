#pragma once
// Dissemination barrier (Hensgen, Finkel and Manber): ceil(log2 P) rounds; in round k every member signals the
// member 2^k places ahead and waits for the one 2^k places behind. No member leaves before every member arrived.
#include "algorithms/comm/Comm.hpp"

namespace quorum {

void barrier(Comm& comm, const Group& group, Channel channel = Channel::Barrier);

}  // namespace quorum
