#include "algorithms/prague/StaticSchedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace quorum {

namespace {

// The ring matching of one rank per node: phase 0 pairs (2i, 2i+1), phase 1 pairs (2i+1, 2i+2 mod P) (on two
// ranks both phases are the one pair).
std::vector<int> ring_matching(int rank, std::int64_t phase, int world) {
  if (world < 2) return {rank};
  const int shift = static_cast<int>(phase % 2);
  const int pos = ((rank - shift) % world + world) % world;  // position in the shifted ring
  const int pairs = world / 2;
  const int index = pos / 2;
  if (index >= pairs) return {rank};  // the odd one out
  const int a = (2 * index + shift) % world, b = (2 * index + 1 + shift) % world;
  return {std::min(a, b), std::max(a, b)};
}

// Partner among local workers that pair from the outside in over the sorted list `locals`.
int outside_in_partner(int local, const std::vector<int>& locals) {
  const auto it = std::find(locals.begin(), locals.end(), local);
  const auto i = static_cast<std::size_t>(it - locals.begin());
  const std::size_t j = locals.size() - 1 - i;
  return i == j ? -1 : locals[j];
}

// Partner among local workers that pair from the top: (top-1, top), (top-3, top-2), ...; the lowest idles when odd.
int from_top_partner(int local, int lowest, int top) {
  const int offset = top - local;  // 0 for the top
  const int partner = offset % 2 == 0 ? local - 1 : local + 1;
  return partner < lowest || partner > top ? -1 : partner;
}

}  // namespace

int static_schedule_period(int ranks_per_node) { return ranks_per_node >= 2 ? 4 : 2; }

std::vector<int> static_group(int rank, std::int64_t step, int world_size, int ranks_per_node) {
  const int n = ranks_per_node;
  if (n < 1 || world_size % n != 0) throw std::invalid_argument("static schedule: ranks per node must divide P");
  if (n == 1) return ring_matching(rank, step % 2, world_size);
  const int nodes = world_size / n, node = rank / n, local = rank % n;
  const int phase = static_cast<int>(step % 4);
  std::vector<int> members;
  if (phase == 1 || phase == 3) {
    for (int l = 0; l < n; ++l) members.push_back(node * n + l);
    return members;
  }
  if (phase == 0) {
    if (local == 0) {
      for (int k = 0; k < nodes; ++k) members.push_back(k * n);
      return members;
    }
    const int partner = from_top_partner(local, 1, n - 1);
    if (partner < 0) return {rank};
    return {node * n + std::min(local, partner), node * n + std::max(local, partner)};
  }
  // phase 2
  if (local == 1) {
    int other = -1;
    if (nodes % 2 == 0) {
      other = (node + nodes / 2) % nodes;
    } else {
      const int half = (nodes - 1) / 2;
      if (node < half) other = node + half;
      else if (node < 2 * half) other = node - half;
    }
    if (other < 0) return {rank};
    return {std::min(node, other) * n + 1, std::max(node, other) * n + 1};
  }
  std::vector<int> locals{0};
  for (int l = 2; l < n; ++l) locals.push_back(l);
  const int partner = outside_in_partner(local, locals);
  if (partner < 0) return {rank};
  return {node * n + std::min(local, partner), node * n + std::max(local, partner)};
}

}  // namespace quorum
