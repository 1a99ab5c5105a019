// Binomial-tree reduce to the group's first member, then broadcast back down the same tree.
#include <bit>
#include <utility>

#include "algorithms/collectives/SyncAllreduce.hpp"
#include "algorithms/comm/Schedule.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {
namespace {
enum Sub : int { kUp = 2, kDown = 3 };

// In the binomial tree rooted at index 0, the parent of i > 0 is i without its lowest set bit, and the children of
// i are i + 2^k for every 2^k below i's lowest set bit (any k for the root).
std::vector<int> children_of(int i, int p) {
  std::vector<int> children;
  const int limit = i == 0 ? p : (i & -i);
  for (int bit = 1; bit < limit && i + bit < p; bit <<= 1) children.push_back(i + bit);
  return children;
}
}  // namespace

void tree_reduce_broadcast(Schedule& schedule, Comm& comm, const Group& group, std::vector<float>& data,
                           double logical_bytes, Channel channel) {
  const int p = group.size(), i = group.index_of(comm.rank());
  if (p <= 1) return;
  const Tag up = tags::make(channel, kUp), down = tags::make(channel, kDown);
  const std::vector<int> children = children_of(i, p);

  // Shared state of this rank's part of the tree, alive until the schedule has run.
  struct State {
    std::vector<std::vector<float>> from_children;
    std::size_t arrived = 0;
  };
  auto state = std::make_shared<State>();
  state->from_children.resize(children.size());

  // Each child gets the total in the vector it sent up, now summed in: every vector of the allreduce goes back to the
  // rank it came from, so no rank allocates (or the allocator zeroes and maps again) a vector of the model's size.
  auto broadcast = [&comm, &group, &data, children, state, down, logical_bytes, &schedule]() {
    for (std::size_t k = 0; k < children.size(); ++k) {
      std::vector<float> total = std::move(state->from_children[k]);
      total.assign(data.begin(), data.end());
      schedule.on(comm.isend(group.rank_at(children[k]), down, Payload{std::move(total), {}}, logical_bytes));
    }
  };
  auto all_arrived = [&comm, &group, &data, children, state, i, up, down, logical_bytes, &schedule, broadcast]() {
    // Sum in a fixed order (own values, then children by distance) so every run rounds the same way.
    for (const auto& v : state->from_children) {
      vec::add(data, v);
      comm.charge_reduction(logical_bytes, v.size());
    }
    if (i == 0) {
      broadcast();
      return;
    }
    const int parent = group.rank_at(i & (i - 1));
    // The partial sum leaves by move: the broadcast replaces it with the total, and a copy of every rank's vector
    // was half the serial work of a simulated allreduce with real math.
    schedule.on(comm.isend(parent, up, Payload{std::move(data), {}}, logical_bytes));
    schedule.on(comm.irecv(parent, down), [&comm, &data, broadcast](const RequestPtr& r) {
      data = std::move(comm.take(r).payload.values);
      broadcast();
    });
  };

  if (children.empty()) {
    all_arrived();
    return;
  }
  for (std::size_t k = 0; k < children.size(); ++k) {
    schedule.on(comm.irecv(group.rank_at(children[k]), up), [&comm, state, k, all_arrived](const RequestPtr& r) {
      state->from_children[k] = std::move(comm.take(r).payload.values);
      if (++state->arrived == state->from_children.size()) all_arrived();
    });
  }
}

}  // namespace quorum
