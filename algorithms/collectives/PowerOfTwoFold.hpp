#pragma once
// Non-power-of-two groups for the butterfly algorithms (recursive doubling, Rabenseifner): the first 2r members
// (r = P - 2^floor(log2 P)) pair up, the even one hands its vector to the odd one and sits out, and the remaining
// 2^k members run the butterfly on "virtual" indices; at the end each odd member hands the result back.
#include <bit>

#include "algorithms/comm/Comm.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

struct PowerOfTwoFold {
  int p = 1;       // group size
  int p2 = 1;      // largest power of two <= p
  int extra = 0;   // r = p - p2
  int index = 0;   // this member's index in the group
  int virtual_index = -1;  // index among the p2 active members, -1 if this member sits out

  PowerOfTwoFold(int group_size, int my_index) : p(group_size), index(my_index) {
    p2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
    extra = p - p2;
    if (index < 2 * extra)
      virtual_index = (index % 2 == 1) ? index / 2 : -1;
    else
      virtual_index = index - extra;
  }
  // Group index of the member holding virtual index v.
  int real_index(int v) const { return v < extra ? 2 * v + 1 : v + extra; }

  // Before the butterfly: even members of the first 2r hand over their data; odd ones add it.
  void fold_in(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes, Tag tag) const {
    if (index >= 2 * extra) return;
    if (virtual_index < 0) {
      comm.send(group.rank_at(index + 1), tag, Payload{data, {}}, logical_bytes);
    } else {
      Message m = comm.recv(group.rank_at(index - 1), tag);
      // Lower index first, so the sum rounds the same on every member.
      vec::add(m.payload.values, data);
      comm.charge_reduction(logical_bytes, data.size());
      data = std::move(m.payload.values);
    }
  }
  // After the butterfly: odd members of the first 2r hand the result back.
  void fold_out(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes, Tag tag) const {
    if (index >= 2 * extra) return;
    if (virtual_index < 0)
      data = std::move(comm.recv(group.rank_at(index + 1), tag).payload.values);
    else
      comm.send(group.rank_at(index - 1), tag, Payload{data, {}}, logical_bytes);
  }
};

}  // namespace quorum
