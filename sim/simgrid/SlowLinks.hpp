#pragma once
// The slow_link imbalance in the simulator (StragglerModel.hpp): the network links that belong to a slow rank alone
// carry data factor times slower, in both directions, for every transfer that crosses them while they are slow.
//
// A rank's own links are found from the platform's routes, so every platform (and any XML file) works without
// naming conventions: the links on every route from the rank to each other rank (its way out) and on every route
// from each other rank to it (its way in), less the links that two other ranks' routes between themselves also use
// (a memory system or backbone every transfer crosses). On a star or a cluster that is the rank's private link, up
// and down; on Maverick2 a GPU's PCIe link (its node's InfiniBand adapter is shared by four GPUs, so not its own).
//
// Slowing divides the link's bandwidth (latency unchanged): SimGrid then shares the slower link among the transfers
// crossing it, including those already under way. A rank applies its own factor as each of its steps starts (and
// before its first), so a redrawn slow rank changes at its own step boundaries, as the MPI backend's does.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "sim/model/StragglerModel.hpp"

namespace quorum {

class SlowLinks {
 public:
  SlowLinks(std::vector<simgrid::s4u::Host*> hosts, const StragglerModel& model);

  // The links of `rank` alone, as described above (empty on a platform of one rank).
  static std::vector<simgrid::s4u::Link*> own_links(const std::vector<simgrid::s4u::Host*>& hosts, int rank);

  // Sets the rank's links to its factor at `step` (the first call is made with step 0 before any transfer).
  void enter_step(int rank, std::int64_t step);
  // The factor the rank's links have now.
  double factor(int rank) const;
  // Bandwidth of the rank's slowest own link when not slowed (0 if it has none): what a native allreduce, which
  // does not run over the simulated links, is charged its extra transfer time with.
  double own_bandwidth_Bps(int rank);

 private:
  struct LinkState {
    double base_Bps = 0;
    std::map<int, double> factors;  // by rank that slows it (on two ranks, a link can be on both ranks' routes)
  };
  const std::vector<simgrid::s4u::Link*>& links_of(int rank);
  void apply(simgrid::s4u::Link* link);

  std::vector<simgrid::s4u::Host*> hosts_;
  const StragglerModel& model_;
  std::unordered_map<int, std::vector<simgrid::s4u::Link*>> own_;  // found lazily: a route scan per rank is O(P)
  std::unordered_map<simgrid::s4u::Link*, LinkState> state_;
  std::unordered_map<int, double> factor_;
};

}  // namespace quorum
