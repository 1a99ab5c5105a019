#include "algorithms/collectives/ButterflyGrouping.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace quorum {

bool is_power_of_two(std::int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

int log2_exact(std::int64_t n) {
  int k = 0;
  while ((std::int64_t{1} << k) < n) ++k;
  return k;
}

ButterflyGrouping::ButterflyGrouping(int world_size, int group_size, bool dynamic)
    : world_size_(world_size), group_size_(group_size), dynamic_(dynamic) {
  if (!is_power_of_two(world_size))
    throw std::invalid_argument("world_size: the butterfly grouping needs a power-of-two number of ranks, got " +
                                std::to_string(world_size));
  if (!is_power_of_two(group_size) || group_size > world_size)
    throw std::invalid_argument("group_size: must be a power of two between 1 and the number of ranks (" +
                                std::to_string(world_size) + "), got " + std::to_string(group_size));
  global_phases_ = log2_exact(world_size);
  group_phases_ = log2_exact(group_size);
}

std::vector<int> ButterflyGrouping::dimensions(std::int64_t step) const {
  std::vector<int> dims;
  if (group_phases_ == 0) return dims;
  const std::int64_t t = dynamic_ ? step : 0;
  int shift = static_cast<int>((t % global_phases_) * group_phases_ % global_phases_);
  for (int r = 0; r < group_phases_; ++r) {
    dims.push_back(shift);
    shift = (shift + 1) % global_phases_;
  }
  return dims;
}

Group ButterflyGrouping::group_of(int rank, std::int64_t step) const {
  const std::vector<int> dims = dimensions(step);
  int span = 0;
  for (int d : dims) span |= 1 << d;
  const int base = rank & ~span;
  Group g;
  // Every combination of the group's dimension bits on top of the bits the members share.
  for (int k = 0; k < group_size_; ++k) {
    int member = base;
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (k & (1 << i)) member |= 1 << dims[i];
    g.members.push_back(member);
  }
  std::sort(g.members.begin(), g.members.end());
  return g;
}

std::vector<Group> ButterflyGrouping::groups(std::int64_t step) const {
  // Algorithm 1: start from P singletons, merge the groups of p and p XOR mask for every round's mask.
  std::vector<int> parent(static_cast<std::size_t>(world_size_));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&parent](int x) {
    while (parent[static_cast<std::size_t>(x)] != x) x = parent[static_cast<std::size_t>(x)];
    return x;
  };
  for (int d : dimensions(step)) {
    const int mask = 1 << d;
    for (int p = 0; p < world_size_; ++p) {
      const int a = find(p), b = find(p ^ mask);
      if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
  }
  std::vector<Group> out;
  std::vector<int> index(static_cast<std::size_t>(world_size_), -1);
  for (int p = 0; p < world_size_; ++p) {
    const int root = find(p);
    if (index[static_cast<std::size_t>(root)] < 0) {
      index[static_cast<std::size_t>(root)] = static_cast<int>(out.size());
      out.emplace_back();
    }
    out[static_cast<std::size_t>(index[static_cast<std::size_t>(root)])].members.push_back(p);
  }
  return out;
}

}  // namespace quorum
