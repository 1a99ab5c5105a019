#include "algorithms/collectives/ActivationTree.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace quorum {

ActivationTree::ActivationTree(int world_size)
    : p_(world_size), butterfly_(world_size > 0 && (world_size & (world_size - 1)) == 0) {
  if (world_size < 1) throw std::invalid_argument("ActivationTree: world size must be at least 1");
}

std::vector<int> ActivationTree::children(int rank, int root) const {
  std::vector<int> out;
  if (butterfly_) {
    const unsigned d = static_cast<unsigned>(rank ^ root);
    const unsigned first = d == 0 ? 1u : std::bit_floor(d) << 1;
    for (unsigned bit = first; bit < static_cast<unsigned>(p_); bit <<= 1) out.push_back(rank ^ static_cast<int>(bit));
    return out;  // lowest bit first: its subtree is the biggest
  }
  const int d = ((rank - root) % p_ + p_) % p_;
  const int limit = d == 0 ? p_ : (d & -d);
  for (int bit = 1; bit < limit && d + bit < p_; bit <<= 1) out.push_back((root + d + bit) % p_);
  std::reverse(out.begin(), out.end());  // highest bit first: its subtree is the biggest
  return out;
}

int ActivationTree::parent(int rank, int root) const {
  if (rank == root) return -1;
  if (butterfly_) return rank ^ static_cast<int>(std::bit_floor(static_cast<unsigned>(rank ^ root)));
  const int d = ((rank - root) % p_ + p_) % p_;
  return ((rank - (d & -d)) % p_ + p_) % p_;
}

std::vector<int> ActivationTree::possible_parents(int rank) const {
  std::vector<int> out;
  for (int bit = 1; bit < p_; bit <<= 1) out.push_back(butterfly_ ? rank ^ bit : ((rank - bit) % p_ + p_) % p_);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace quorum
