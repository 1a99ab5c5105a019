// Ring allreduce: reduce-scatter then allgather around the ring of the group's members.
#include "algorithms/collectives/Partition.hpp"
#include "algorithms/collectives/SyncAllreduce.hpp"
#include "algorithms/comm/Schedule.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {
namespace {

enum Sub : int { kReduceScatter = 0, kAllgather = 1 };

int mod(int a, int p) { return ((a % p) + p) % p; }

// Every message of the real algorithm: 2(P-1) steps, each moving one block of 1/P of the vector.
void ring_chunks(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes, Channel channel) {
  const int p = group.size(), i = group.index_of(comm.rank());
  const int left = group.rank_at(mod(i - 1, p)), right = group.rank_at(mod(i + 1, p));
  const BlockPartition part{data.size(), logical_bytes, p};
  const Tag rs = tags::make(channel, kReduceScatter), ag = tags::make(channel, kAllgather);

  for (int s = 0; s < p - 1; ++s) {
    const int send_block = mod(i - s, p), recv_block = mod(i - s - 1, p);
    auto r = comm.irecv(left, rs);
    auto w = comm.isend(right, rs, Payload{part.copy(data, send_block, send_block + 1), {}},
                        part.bytes_of(send_block, send_block + 1));
    comm.wait(r);
    Message m = comm.take(r);
    vec::add(part.span(data, recv_block, recv_block + 1), m.payload.values);
    comm.charge_reduction(part.bytes_of(recv_block, recv_block + 1), m.payload.values.size());
    comm.wait(w);
  }
  for (int s = 0; s < p - 1; ++s) {
    const int send_block = mod(i + 1 - s, p), recv_block = mod(i - s, p);
    auto r = comm.irecv(left, ag);
    auto w = comm.isend(right, ag, Payload{part.copy(data, send_block, send_block + 1), {}},
                        part.bytes_of(send_block, send_block + 1));
    comm.wait(r);
    Message m = comm.take(r);
    auto dst = part.span(data, recv_block, recv_block + 1);
    std::copy(m.payload.values.begin(), m.payload.values.end(), dst.begin());
    comm.wait(w);
  }
}

// The real values first go through a binomial reduce/broadcast of zero simulated size: it delivers the exact
// sum and, like the real ring, lets no bulk transfer start before the slowest member has arrived (in a ring, a
// rank's k-th step waits for the rank k places to its left). Then one aggregated message per phase goes to the
// right neighbour, with the bytes the ring moves in that phase.
void ring_phases(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes, Channel channel) {
  const int p = group.size(), i = group.index_of(comm.rank());
  const int left = group.rank_at(mod(i - 1, p)), right = group.rank_at(mod(i + 1, p));
  const double phase_bytes = logical_bytes * (p - 1) / p;
  const Tag rs = tags::make(channel, kReduceScatter), ag = tags::make(channel, kAllgather);

  {
    Schedule dependency(comm);
    const Channel dep = channel == Channel::SyncAllreduce ? Channel::SyncAllreduceDep : channel;
    tree_reduce_broadcast(dependency, comm, group, data, 0.0, dep);
    dependency.run();
  }
  Schedule schedule(comm);
  schedule.on(comm.isend(right, rs, Payload{}, phase_bytes));
  schedule.on(comm.irecv(left, rs), [&](const RequestPtr&) {
    // The ring sums P-1 received blocks before its share is final (the real values were summed by the tree).
    comm.charge_reduction(phase_bytes, 0);
    // The allgather leaves only after this rank's share of the reduce-scatter has arrived, as in the ring.
    schedule.on(comm.isend(right, ag, Payload{}, phase_bytes));
  });
  schedule.on(comm.irecv(left, ag));
  schedule.run();
}

}  // namespace

void ring_allreduce(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes, Fidelity fidelity,
                    Channel channel) {
  if (group.size() <= 1) return;
  if (fidelity == Fidelity::Chunk)
    ring_chunks(comm, group, data, logical_bytes, channel);
  else
    ring_phases(comm, group, data, logical_bytes, channel);
}

}  // namespace quorum
