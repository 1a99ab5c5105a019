#include "algorithms/collectives/Barrier.hpp"

namespace quorum {

void barrier(Comm& comm, const Group& group, Channel channel) {
  const int p = group.size(), i = group.index_of(comm.rank());
  int round = 0;
  for (int distance = 1; distance < p; distance <<= 1, ++round) {
    const Tag tag = tags::make(channel, round);
    auto recv = comm.irecv(group.rank_at((i - distance + p) % p), tag);
    auto send = comm.isend(group.rank_at((i + distance) % p), tag, Payload{}, 0);
    comm.wait(recv);
    comm.wait(send);
  }
}

}  // namespace quorum
