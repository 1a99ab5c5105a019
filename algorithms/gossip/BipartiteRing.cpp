#include "algorithms/gossip/BipartiteRing.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace quorum {

namespace {

// Parses hops into distances; returns an error message or an empty string.
std::string parse(const std::string& hops, int world, std::vector<int>& out) {
  out.clear();
  if (world <= 1) return {};
  if (hops == "ring") {
    out = {1};
  } else if (hops == "exponential") {
    out.push_back(1);
    for (long p = 2; p + 1 < world; p *= 2) out.push_back(static_cast<int>(p + 1));
  } else {
    std::stringstream in(hops);
    std::string item;
    while (std::getline(in, item, ',')) {
      std::size_t used = 0;
      long d = 0;
      try {
        d = std::stol(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != item.size() || d < 1)
        return "hops: expected \"ring\", \"exponential\" or a comma-separated list of positive odd distances such "
               "as \"1,3,7\", got \"" + hops + "\"";
      if (d % 2 == 0)
        return "hops: distance " + std::to_string(d) +
               " is even: it would join two active (or two passive) ranks, the graph would not be bipartite and "
               "atomic pairwise averaging could deadlock (AD-PSGD sec. 3.3.1); use odd distances such as 1,3,5";
      if (d >= world)
        return "hops: distance " + std::to_string(d) + " does not fit a ring of " + std::to_string(world) +
               " ranks (distances must be below the number of ranks)";
      out.push_back(static_cast<int>(d));
    }
    if (out.empty()) return "hops: the list of distances is empty";
  }
  if (world % 2 != 0)
    return "hops: " + std::to_string(world) +
           " ranks cannot be split into an active and a passive set joined only across (a ring of odd length is not "
           "bipartite), so atomic averaging could deadlock (AD-PSGD sec. 3.3.1); run AD-PSGD on an even number of "
           "ranks";
  return {};
}

}  // namespace

std::string BipartiteRing::check(const std::string& hops, int world_size) {
  std::vector<int> d;
  return parse(hops, world_size, d);
}

BipartiteRing::BipartiteRing(const std::string& hops, int world_size) : world_(world_size) {
  const std::string error = parse(hops, world_size, distances_);
  if (!error.empty()) throw std::invalid_argument(error);
}

std::vector<int> BipartiteRing::neighbours(int rank) const {
  std::vector<int> out;
  for (int d : distances_) {
    out.push_back((rank + d) % world_);
    out.push_back(((rank - d) % world_ + world_) % world_);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  out.erase(std::remove(out.begin(), out.end(), rank), out.end());
  return out;
}

}  // namespace quorum
