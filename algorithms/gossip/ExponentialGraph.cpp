#include "algorithms/gossip/ExponentialGraph.hpp"

#include <algorithm>
#include <stdexcept>

namespace quorum {

DirectedExponentialGraph::DirectedExponentialGraph(int world_size, int peers_per_step)
    : world_(world_size), peers_per_step_(peers_per_step) {
  if (world_size < 1 || peers_per_step < 1) throw std::invalid_argument("exponential graph: sizes must be positive");
  for (long d = 1; d < world_size; d *= 2) distances_.push_back(static_cast<int>(d));
}

std::vector<int> DirectedExponentialGraph::step_distances(std::int64_t step) const {
  std::vector<int> out;
  const auto n = static_cast<std::int64_t>(distances_.size());
  if (n == 0) return out;
  const std::int64_t m = std::min<std::int64_t>(peers_per_step_, n);
  const std::int64_t first = (step * m) % n;
  for (std::int64_t j = 0; j < m; ++j) out.push_back(distances_[static_cast<std::size_t>((first + j) % n)]);
  return out;
}

std::vector<int> DirectedExponentialGraph::out_peers(int rank, std::int64_t step) const {
  std::vector<int> peers;
  for (int d : step_distances(step)) peers.push_back((rank + d) % world_);
  return peers;
}

std::vector<int> DirectedExponentialGraph::in_peers(int rank, std::int64_t step) const {
  std::vector<int> peers;
  for (int d : step_distances(step)) peers.push_back(((rank - d) % world_ + world_) % world_);
  return peers;
}

}  // namespace quorum
