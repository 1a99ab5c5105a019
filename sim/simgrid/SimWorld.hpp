#pragma once
// State shared by all ranks of one simulation: rank placement, mailboxes, the compute model, live agents.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "algorithms/comm/Tag.hpp"
#include "platforms/PlatformBuilder.hpp"
#include "platforms/PlatformConfig.hpp"
#include "sim/simgrid/CommCompletions.hpp"
#include "sim/simgrid/ControlCouriers.hpp"
#include "sim/simgrid/DirectMessages.hpp"
#include "sim/simgrid/HostRoute.hpp"
#include "sim/simgrid/KeyTable.hpp"
#include "sim/model/ComputeModel.hpp"
#include "sim/simgrid/RankMathPool.hpp"
#include "sim/simgrid/RouteSegments.hpp"
#include "sim/simgrid/SimNativeAllreduce.hpp"
#include "sim/simgrid/SlowLinks.hpp"

namespace quorum {

class SimWorld {
 public:
  SimWorld(std::vector<simgrid::s4u::Host*> hosts, const ComputeModel& compute, HostCosts costs = {})
      : hosts_(std::move(hosts)), host_index_(dense_host_indices(hosts_)), compute_(compute), reduce_Bps_(costs.reduce_Bps) {
    if (costs.native_allreduce != nullptr && !costs.native_allreduce->empty())
      native_ = std::make_unique<SimNativeAllreduce>(*costs.native_allreduce);
    if (costs.shared_cores > 0) {
      cores_ = costs.shared_cores;
      ranks_per_node_ = costs.ranks_per_node;
      for (int node = 0; node * ranks_per_node_ < size(); ++node)
        shared_cores_.push_back(simgrid::s4u::Host::by_name(shared_cores_host(node)));
    }
    if (compute_.stragglers().slows_links()) slow_links_ = std::make_unique<SlowLinks>(hosts_, compute_.stragglers());
  }

  int size() const { return static_cast<int>(hosts_.size()); }
  simgrid::s4u::Host* host(int rank) const { return hosts_[static_cast<std::size_t>(rank)]; }
  // The hosts of two ranks, keyed for the route caches.
  HostPair host_pair(int from, int to) const {
    const auto f = static_cast<std::size_t>(from), t = static_cast<std::size_t>(to);
    return {hosts_[f], hosts_[t], HostPair::key_of(host_index_[f], host_index_[t])};
  }
  const ComputeModel& compute() const { return compute_; }
  // Bytes per second a rank sums while every rank does (0: reductions cost no simulated time).
  double reduce_Bps() const { return reduce_Bps_; }
  // The host whose cores a rank shares with its node's ranks (PlatformBuilder.hpp), or null when every rank has a
  // core of its own.
  simgrid::s4u::Host* shared_cores(int rank) const {
    return shared_cores_.empty() ? nullptr : shared_cores_[static_cast<std::size_t>(rank / ranks_per_node_)];
  }
  // The share of a core each of `working` ranks of one node had while all of them worked at once (1 with a core per
  // rank): the calibration measured its times so, and SimComm converts them to core-seconds with it.
  double core_share(int working) const {
    return cores_ > 0 && working > cores_ ? static_cast<double>(cores_) / working : 1.0;
  }
  int ranks_per_node() const { return ranks_per_node_; }
  // The platform's measured native allreduce, or null (native allreduces then run as point-to-point algorithms).
  SimNativeAllreduce* native_allreduce() const { return native_.get(); }
  // The slow_link imbalance's links, or null under any other imbalance.
  SlowLinks* slow_links() const { return slow_links_.get(); }

  // One mailbox per (destination, source, tag); any-source tags use source -1. Matching per triple is then
  // SimGrid's FIFO matching, which is MPI's non-overtaking rule.
  simgrid::s4u::Mailbox* mailbox(int dst, int src, Tag tag);
  // The triple's key (mailbox names, DirectMessages' matching).
  static std::uint64_t mailbox_key(int dst, int src, Tag tag) {
    return (static_cast<std::uint64_t>(dst) << 44) | (static_cast<std::uint64_t>(src + 1) << 24) |
           static_cast<std::uint64_t>(tag);
  }

  // Where the ranks' math runs: null runs it inline, at the start of compute(); otherwise see RankMathPool. Shared
  // with the agents' requests and locks, which may outlive this world when a simulation is torn down.
  const std::shared_ptr<RankMathPool>& math_pool() const { return math_pool_; }
  void use_math_threads(int threads) {
    math_pool_ = threads > 1 ? std::make_shared<RankMathPool>(size(), threads) : nullptr;
  }

  // Where control messages go when they skip the max-min system, or null: every message is a flow that shares its
  // links. The control channels' messages are matched and delivered by quorum (DirectMessages.hpp); other small
  // posted messages go through a courier (ControlCouriers.hpp).
  ControlCouriers* control_couriers() const { return couriers_.get(); }
  DirectMessages* direct_messages() const { return direct_.get(); }
  // Whether data messages go direct too, timed by quorum's flow model (DirectFlows.hpp).
  bool direct_data() const { return flows_ != nullptr; }
  // unshared_control: control messages skip the max-min system; direct_data: data messages are matched by
  // DirectMessages and shared by DirectFlows. Each applies where the network model allows it (else the messages are
  // SimGrid's), and direct_data only with unshared_control: control messages shared as SimGrid flows would not
  // share the links with quorum's. flow_solve_window_s: the flow model's solve window (FlowNetwork::set_solve_window).
  // route_cache_pairs: how many host pairs each route cache keeps (0: pair_cache_limit(), HostRoute.hpp).
  void use_message_paths(bool unshared_control, bool direct_data, double flow_solve_window_s = 0,
                         std::size_t route_cache_pairs = 0) {
    couriers_ = unshared_control && ControlCouriers::usable() ? std::make_unique<ControlCouriers>() : nullptr;
    const bool direct_usable = unshared_control && DirectMessages::usable();
    flows_ = direct_data && direct_usable && DirectFlows::usable() ? std::make_unique<DirectFlows>(routes_) : nullptr;
    if (flows_) flows_->set_solve_window(flow_solve_window_s);
    direct_ = direct_usable ? std::make_unique<DirectMessages>(completions_, routes_, flows_.get()) : nullptr;
    if (route_cache_pairs > 0) {
      routes_.limit_pairs(route_cache_pairs);
      if (flows_) flows_->limit_pairs(route_cache_pairs);
      if (direct_) direct_->limit_pairs(route_cache_pairs);
    }
  }

  // Where every request's communication is watched until it ends (CommCompletions.hpp); shared with the requests,
  // which may outlive this world.
  const std::shared_ptr<CommCompletions>& completions() const { return completions_; }

  int live_agents = 0;      // progress agents started and not yet finished
  std::string first_error;  // first exception escaping a rank or agent (it would abort SimGrid)

 private:
  // Each rank's host numbered 0, 1, ... in the order ranks first name it (ranks of one node share a number).
  static std::vector<int> dense_host_indices(const std::vector<simgrid::s4u::Host*>& hosts) {
    std::unordered_map<const simgrid::s4u::Host*, int> index;
    std::vector<int> by_rank;
    by_rank.reserve(hosts.size());
    for (const auto* h : hosts) by_rank.push_back(index.try_emplace(h, static_cast<int>(index.size())).first->second);
    return by_rank;
  }

  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<int> host_index_;  // by rank
  const ComputeModel& compute_;
  double reduce_Bps_;
  std::vector<simgrid::s4u::Host*> shared_cores_;  // by node
  int cores_ = 0;
  int ranks_per_node_ = 1;
  std::unique_ptr<SimNativeAllreduce> native_;
  std::unique_ptr<SlowLinks> slow_links_;
  KeyTable<simgrid::s4u::Mailbox*> mailboxes_;
  std::shared_ptr<RankMathPool> math_pool_;
  std::unique_ptr<ControlCouriers> couriers_;
  std::shared_ptr<CommCompletions> completions_ = std::make_shared<CommCompletions>();
  RouteSegments routes_;                     // before flows_ and direct_, which look routes up in it
  std::unique_ptr<DirectFlows> flows_;       // before direct_, whose messages in flight it holds
  std::unique_ptr<DirectMessages> direct_;  // after completions_, which it ends transfers through
};

}  // namespace quorum
