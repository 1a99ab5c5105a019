// Recursive doubling (butterfly) allreduce: log2 P exchanges of the whole vector with partners at distance 1, 2, 4...
#include "algorithms/collectives/PowerOfTwoFold.hpp"
#include "algorithms/collectives/SyncAllreduce.hpp"

namespace quorum {
namespace {
enum Sub : int { kFoldIn = 0, kExchange = 1, kFoldOut = 2 };
}

void recursive_doubling_allreduce(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes,
                                  Channel channel) {
  if (group.size() <= 1) return;
  const PowerOfTwoFold fold(group.size(), group.index_of(comm.rank()));
  fold.fold_in(comm, group, data, logical_bytes, tags::make(channel, kFoldIn));
  if (fold.virtual_index >= 0) {
    const Tag tag = tags::make(channel, kExchange);
    for (int mask = 1; mask < fold.p2; mask <<= 1) {
      const int partner = group.rank_at(fold.real_index(fold.virtual_index ^ mask));
      auto r = comm.irecv(partner, tag);
      auto s = comm.isend(partner, tag, Payload{data, {}}, logical_bytes);
      comm.wait(r);
      Message m = comm.take(r);
      vec::add(data, m.payload.values);  // a + b == b + a in IEEE arithmetic: both partners get the same bits
      comm.charge_reduction(logical_bytes, m.payload.values.size());
      comm.wait(s);
    }
  }
  fold.fold_out(comm, group, data, logical_bytes, tags::make(channel, kFoldOut));
}

}  // namespace quorum
