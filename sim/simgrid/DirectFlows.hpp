#pragma once
// Transfers that share the network as SimGrid's CM02 flows do, solved by quorum's FlowNetwork on SimGrid's clock
// instead of as SimGrid communications (data_messages: "direct").
//
// Why: at 4,096 ranks the butterflies', gossips' and the parameter server's data messages cost, as SimGrid
// communications, an activity, a mailbox match, a max-min variable and SimGrid's selective update, which re-solves
// every flow connected to a changed one through any link, at every start and end; and a server's thousands of
// pending receives are scanned at each completion. DirectMessages matches and delivers them; this class times them.
//
// The model is CM02's as SimGrid 3.32 sets it up (network_cm02.cpp): a flow pays its route's latency without a share,
// then shares every link of its route max-min fairly with penalty = the route's latency (1 on a route without
// latency, such as a loopback), bounded by its narrowest link's bandwidth at its start and by the TCP window
// (network/TCP-gamma / (2 latency)). A link's bandwidth change (slow_link) applies to the flows under way.
// FATPIPE links bound a flow but are shared by none. Solved exactly; what can differ from SimGrid is rounding
// (SimGrid's solver works to maxmin/precision, 1e-5 relative) and, at an instant where several actors resume, the
// order in which they run (as for DirectMessages).
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sim/model/FlowNetwork.hpp"
#include "sim/simgrid/HostRoute.hpp"
#include "sim/simgrid/KernelAlarm.hpp"
#include "sim/simgrid/KeyTable.hpp"
#include "sim/simgrid/RouteSegments.hpp"

namespace quorum {

class DirectFlows {
 public:
  // Whether SimGrid's network model is one this class reproduces: CM02 without cross-traffic. (Timers are set from
  // actors' code, which needs the sequential engine; run_ranks requires it.)
  static bool usable();

  // The latest constructed instance hears links' bandwidth changes (one simulation per process at a time). `routes`
  // must outlive it.
  explicit DirectFlows(RouteSegments& routes);
  ~DirectFlows();
  DirectFlows(const DirectFlows&) = delete;
  DirectFlows& operator=(const DirectFlows&) = delete;

  // Who hears of the arrivals: called in maestro with the tokens of the transfers whose last byte arrived at one
  // instant, in the order they ended (a batch: at 4,096 ranks hundreds of flows end at once, and the listener fetches
  // what they touch across it). Must be set before the first start(); reset (to nothing) by a listener that goes
  // before this object, so that no arrival reaches it afterwards.
  using Arrivals = std::function<void(std::span<const std::uint32_t> tokens)>;
  void set_arrivals(Arrivals arrived) { arrived_ = std::move(arrived); }

  // Starts a transfer of `bytes` from `from` to `to` now; its arrival is told with `token`.
  void start(const HostPair& hosts, double bytes, std::uint32_t token);

  const FlowNetwork& network() const { return network_; }
  // How many host pairs' routes are kept before they are all forgotten (pair_cache_limit() of the platform's hosts
  // unless set): a pair met again after that has its route put together again, the same.
  void limit_pairs(std::size_t pairs) { pair_limit_ = pairs; }
  void set_solve_window(double window_s) { network_.set_solve_window(window_s); }

 private:
  // A pair's route: its slices of shared_links_ (the links it shares) and fat_pipes_ (links that bound it only).
  // Slices rather than vectors of its own: Prague meets thousands of new pairs a step, and a table of small slots
  // grows (and is allocated) at a fraction of the cost of one holding two vectors per pair.
  struct Route {
    std::uint32_t first_shared = 0, shared = 0;
    std::uint32_t first_fat_pipe = 0, fat_pipes = 0;
    double latency_s = 0;
  };
  // What a SimGrid link is to the flow model, found out the first time a route crosses it.
  struct LinkRole {
    enum class Kind : std::uint8_t { Unseen, Shared, FatPipe } kind = Kind::Unseen;
    FlowNetwork::LinkId id = 0;  // Shared: its link in network_
  };
  Route route(const HostPair& hosts);
  const LinkRole& role_of(const simgrid::s4u::Link* link);
  static std::uint64_t link_key(const simgrid::s4u::Link* link) { return reinterpret_cast<std::uintptr_t>(link); }
  void bandwidth_changed(const simgrid::s4u::Link& link);
  void schedule();
  void fire();

  FlowNetwork network_;
  double tcp_gamma_;
  // By the link's address: a new pair's route (Prague: thousands a step) looks up each of its links here, one probe
  // each, instead of a hash map's bucket and node and SimGrid's link for its sharing policy.
  KeyTable<LinkRole> link_roles_;
  RouteSegments& route_segments_;
  KeyTable<Route> routes_;  // by HostPair::key; emptied with the slices at pair_limit_ pairs
  std::size_t pair_limit_;
  std::vector<FlowNetwork::LinkId> shared_links_;
  std::vector<const simgrid::s4u::Link*> fat_pipes_;
  Arrivals arrived_;
  std::vector<std::uint32_t> tokens_;        // by flow id
  std::vector<FlowNetwork::FlowId> ended_;  // fire()'s, kept allocated
  std::vector<std::uint32_t> arriving_;
  KernelAlarm alarm_{[this] { fire(); }};  // at the network's next event
};

}  // namespace quorum
