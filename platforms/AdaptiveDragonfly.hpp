#pragma once
// A dragonfly whose routers route adaptively (Cray Aries' UGAL: per packet, the minimal path or a non-minimal one
// through an intermediate router, chosen by load), as an aggregated-capacity model on SimGrid's fixed routes.
//
// SimGrid routes every host pair along one fixed path, so per-packet path choice cannot be simulated directly.
// Instead each level of the dragonfly (routers of a chassis, chassis of a group, groups of the machine) is a set of
// n peer units, every pair of which is joined by direct links of capacity c. Traffic between two units crosses:
//   - the source unit's outgoing pool at that level: all its links at the level, (n - 1) c;
//   - the pair's own link: c n / 2, the most that minimal plus Valiant routing moves between one pair when every
//     unit sends to another at once (a permutation: the direct link c, plus the other n - 2 units as
//     intermediates, each non-minimal byte crossing two links: (n - 2) c / 2); c when n = 2;
//   - the destination unit's incoming pool, (n - 1) c.
// So a permutation (a butterfly phase, a ring shift) gets exactly its UGAL/Valiant bound, all-to-all traffic gets the
// level's full capacity, and a single flow never gets less than on the minimal route (both end at the node's link).
// What the model cannot show: a single unit pair alone on an idle level is held to c n / 2 where Valiant could give
// (n - 1) c, and the extra hops of non-minimal paths are not charged as latency (each level's latency is that of
// its minimal path).
//
// Pools that can carry everything their unit's nodes send or receive at once are left out of the routes between
// the level's units (PoolRouting): the nodes' links bind first, so every flow's share is the same, and SimGrid's
// solver no longer couples all the traffic of a chassis or a group through them.
//
// Hierarchy: one star zone per router (its nodes' links), one full zone per chassis (router pools and pairs), one
// per group (chassis pools and pairs), one for the machine (group pools and pairs). Host "<prefix><id>" sits at
// id = ((group * chassis + chassis) * routers + router) * nodes_per_router + node, as in SimGrid's dragonfly. Each
// zone's gateway (the router's, or the hub's router one level up) is recorded on it (ZoneGateway.hpp).
#include <string>
#include <vector>

#include "platforms/PlatformConfig.hpp"

namespace simgrid::s4u {
class Host;
}

namespace quorum {

// The pair link's capacity at a level of `units` peers joined pairwise by `direct_Bps` (see above).
double adaptive_pair_capacity(unsigned units, double direct_Bps);

// Which pools the routes between the units of a level cross.
enum class PoolRouting {
  Binding,  // only pools that can limit a flow (the default; see pools_never_bind in AdaptiveDragonfly.cpp)
  All       // every pool: the same shares, the reference the tests compare Binding with
};

// Builds the whole dragonfly as the root zone and returns every host in id order.
std::vector<simgrid::s4u::Host*> build_adaptive_dragonfly(const std::string& name, const DragonflyLayout& layout,
                                                          double link_bandwidth_Bps, double link_latency_s,
                                                          const std::string& host_prefix,
                                                          PoolRouting pools = PoolRouting::Binding);

}  // namespace quorum
