// Rabenseifner's allreduce: reduce-scatter by recursive halving, then allgather by recursive doubling. Moves
// 2(P-1)/P of the vector per rank like the ring, in 2 log2 P phases instead of 2(P-1) steps.
#include "algorithms/collectives/Partition.hpp"
#include "algorithms/collectives/PowerOfTwoFold.hpp"
#include "algorithms/collectives/SyncAllreduce.hpp"

namespace quorum {
namespace {
enum Sub : int { kFoldIn = 0, kHalving = 1, kDoubling = 2, kFoldOut = 3 };
}

void rabenseifner_allreduce(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes,
                            Channel channel) {
  if (group.size() <= 1) return;
  const PowerOfTwoFold fold(group.size(), group.index_of(comm.rank()));
  fold.fold_in(comm, group, data, logical_bytes, tags::make(channel, kFoldIn));
  if (fold.virtual_index >= 0) {
    const BlockPartition part{data.size(), logical_bytes, fold.p2};
    const int v = fold.virtual_index;
    int lo = 0, hi = fold.p2;  // blocks this member is responsible for

    const Tag halving = tags::make(channel, kHalving);
    for (int mask = fold.p2 / 2; mask >= 1; mask /= 2) {
      const int partner = group.rank_at(fold.real_index(v ^ mask));
      const int mid = (lo + hi) / 2;
      const bool keep_upper = (v & mask) != 0;
      const int send_lo = keep_upper ? lo : mid, send_hi = keep_upper ? mid : hi;
      if (keep_upper) lo = mid; else hi = mid;
      auto r = comm.irecv(partner, halving);
      auto s = comm.isend(partner, halving, Payload{part.copy(data, send_lo, send_hi), {}},
                          part.bytes_of(send_lo, send_hi));
      comm.wait(r);
      Message m = comm.take(r);
      vec::add(part.span(data, lo, hi), m.payload.values);
      comm.charge_reduction(part.bytes_of(lo, hi), m.payload.values.size());
      comm.wait(s);
    }

    const Tag doubling = tags::make(channel, kDoubling);
    for (int mask = 1; mask < fold.p2; mask <<= 1) {
      const int partner = group.rank_at(fold.real_index(v ^ mask));
      const bool upper = (v & mask) != 0;
      const int other_lo = upper ? lo - mask : hi, other_hi = upper ? lo : hi + mask;
      auto r = comm.irecv(partner, doubling);
      auto s = comm.isend(partner, doubling, Payload{part.copy(data, lo, hi), {}}, part.bytes_of(lo, hi));
      comm.wait(r);
      Message m = comm.take(r);
      auto dst = part.span(data, other_lo, other_hi);
      std::copy(m.payload.values.begin(), m.payload.values.end(), dst.begin());
      comm.wait(s);
      lo = std::min(lo, other_lo);
      hi = std::max(hi, other_hi);
    }
  }
  fold.fold_out(comm, group, data, logical_bytes, tags::make(channel, kFoldOut));
}

}  // namespace quorum
