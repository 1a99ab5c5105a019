#include "sim/simgrid/DirectFlows.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

namespace quorum {

namespace sg4 = simgrid::s4u;

namespace {

DirectFlows* current = nullptr;

// SimGrid's signal is process-wide and cannot be disconnected: it is connected once and forwards to the current
// instance (as CommCompletions does).
void connect_once(const std::function<void(const sg4::Link&)>& forward) {
  static const bool connected = [&] {
    sg4::Link::on_bandwidth_change_cb(forward);
    return true;
  }();
  (void)connected;
}

}  // namespace

bool DirectFlows::usable() {
  return simgrid::config::get_value<std::string>("network/model") == "CM02" &&
         !simgrid::config::get_value<bool>("network/crosstraffic");
}

DirectFlows::DirectFlows(RouteSegments& routes)
    : tcp_gamma_(simgrid::config::get_value<double>("network/TCP-gamma")),
      route_segments_(routes),
      pair_limit_(platform_pair_cache_limit()) {
  connect_once([](const sg4::Link& link) {
    if (current != nullptr) current->bandwidth_changed(link);
  });
  current = this;
}

DirectFlows::~DirectFlows() {
  if (current == this) current = nullptr;
}

void DirectFlows::start(const HostPair& hosts, double bytes, std::uint32_t token) {
  if (!arrived_) throw std::logic_error("DirectFlows: a transfer started with nobody to tell its arrival (set_arrivals)");
  const Route r = route(hosts);
  const std::span<const FlowNetwork::LinkId> shared(shared_links_.data() + r.first_shared, r.shared);
  // CM02's bound: the narrowest link's bandwidth now, and the TCP window over the route's latency.
  double bound = FlowNetwork::kNever;
  for (const auto id : shared) bound = std::min(bound, network_.capacity(id));
  for (std::uint32_t i = 0; i < r.fat_pipes; ++i)
    bound = std::min(bound, fat_pipes_[r.first_fat_pipe + i]->get_bandwidth());
  bound = cm02_rate_bound(bound, r.latency_s, tcp_gamma_);
  const double penalty = r.latency_s > 0 ? r.latency_s : 1.0;
  const double now = sg4::Engine::get_clock();
  const auto id = network_.start(now, shared, std::max(bytes, 0.0), r.latency_s, penalty, bound);
  if (tokens_.size() <= id) tokens_.resize(id + 1);
  tokens_[id] = token;
  schedule();
}

// Looked up once per host pair: a flow's start then costs one probe where the pairs repeat (the butterflies, rings and
// gossips); where most pairs are new (Prague), RouteSegments puts the route together without asking SimGrid.
DirectFlows::Route DirectFlows::route(const HostPair& hosts) {
  if (const Route* cached = routes_.find(hosts.key)) return *cached;
  if (routes_.size() >= pair_limit_) {  // bounded (pair_cache_limit()); the flows under way hold copies of their links
    routes_.clear();
    shared_links_.clear();
    fat_pipes_.clear();
  }
  // The pieces are read in place (RouteSegments::links would copy them into one list first), their latencies added
  // in the same order.
  const RouteSegments::Pieces pieces = route_segments_.route(hosts);
  Route r;
  r.first_shared = static_cast<std::uint32_t>(shared_links_.size());
  r.first_fat_pipe = static_cast<std::uint32_t>(fat_pipes_.size());
  for (std::uint32_t i = 0; i < pieces.count; ++i) {
    const HostRoute& piece = route_segments_.segment(pieces.segment[i]);
    r.latency_s += piece.latency_s;
    for (const sg4::Link* link : piece.links) {
      const LinkRole& role = role_of(link);
      if (role.kind == LinkRole::Kind::Shared)
        shared_links_.push_back(role.id);
      else
        fat_pipes_.push_back(link);
    }
  }
  // Slices are 32-bit offsets: 2^32 link ids would be 16 GiB of routes.
  if (shared_links_.size() > std::numeric_limits<std::uint32_t>::max() ||
      fat_pipes_.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("DirectFlows: more than 2^32 link ids in the routes of distinct host pairs");
  r.shared = static_cast<std::uint32_t>(shared_links_.size()) - r.first_shared;
  r.fat_pipes = static_cast<std::uint32_t>(fat_pipes_.size()) - r.first_fat_pipe;
  return routes_.at(hosts.key) = r;
}

// A shared link gets its flow-model link (with its bandwidth now) the first time a route crosses it, so links get
// their ids in the order routes first cross them.
const DirectFlows::LinkRole& DirectFlows::role_of(const sg4::Link* link) {
  LinkRole& role = link_roles_.at(link_key(link));
  if (role.kind != LinkRole::Kind::Unseen) return role;
  switch (link->get_sharing_policy()) {
    case sg4::Link::SharingPolicy::SHARED:
    case sg4::Link::SharingPolicy::SPLITDUPLEX:
      role.kind = LinkRole::Kind::Shared;
      role.id = network_.add_link(link->get_bandwidth());
      return role;
    case sg4::Link::SharingPolicy::FATPIPE:
      role.kind = LinkRole::Kind::FatPipe;
      return role;
    default:
      link_roles_.erase(link_key(link));
      throw std::logic_error("data_messages \"direct\": link " + link->get_name() +
                             " has a sharing policy other than SHARED, SPLITDUPLEX or FATPIPE; use "
                             "data_messages \"simgrid\"");
  }
}

void DirectFlows::bandwidth_changed(const sg4::Link& link) {
  const LinkRole* role = link_roles_.find(link_key(&link));
  // A link no flow has crossed yet has its bandwidth read when one does; a fat pipe's is read at each flow's start.
  if (role == nullptr || role->kind != LinkRole::Kind::Shared) return;
  network_.set_capacity(role->id, link.get_bandwidth(), sg4::Engine::get_clock());
  schedule();
}

void DirectFlows::schedule() { alarm_.set(network_.next_event()); }

void DirectFlows::fire() {
  ended_.clear();
  network_.advance(sg4::Engine::get_clock(), ended_);
  // Taken out first: an arrival may start flows, which may reuse these ids. (Timers never nest: fire() is not
  // re-entered while it runs them.)
  arriving_.clear();
  for (const auto id : ended_) arriving_.push_back(tokens_[id]);
  if (!arriving_.empty() && arrived_) arrived_(arriving_);  // none: the listener is gone (the simulation's teardown)
  schedule();
}

}  // namespace quorum
