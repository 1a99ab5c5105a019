#include "sim/simgrid/SlowLinks.hpp"

#include <algorithm>
#include <set>

#include "sim/simgrid/HostRoute.hpp"

namespace quorum {

namespace sg4 = simgrid::s4u;

namespace {

std::set<sg4::Link*> route_links(sg4::Host* from, sg4::Host* to) {
  const HostRoute route = route_between(from, to);
  return {route.links.begin(), route.links.end()};
}

void keep_common(std::set<sg4::Link*>& kept, const std::set<sg4::Link*>& route) {
  std::erase_if(kept, [&route](sg4::Link* l) { return !route.contains(l); });
}

}  // namespace

SlowLinks::SlowLinks(std::vector<sg4::Host*> hosts, const StragglerModel& model)
    : hosts_(std::move(hosts)), model_(model) {}

std::vector<sg4::Link*> SlowLinks::own_links(const std::vector<sg4::Host*>& hosts, int rank) {
  const int p = static_cast<int>(hosts.size());
  if (p < 2) return {};
  sg4::Host* self = hosts[static_cast<std::size_t>(rank)];
  std::set<sg4::Link*> out, in;
  bool first = true;
  for (int other = 0; other < p; ++other) {
    if (other == rank) continue;
    sg4::Host* peer = hosts[static_cast<std::size_t>(other)];
    if (first) {
      out = route_links(self, peer);
      in = route_links(peer, self);
      first = false;
    } else {
      keep_common(out, route_links(self, peer));
      keep_common(in, route_links(peer, self));
    }
  }
  std::set<sg4::Link*> own(out.begin(), out.end());
  own.insert(in.begin(), in.end());
  // Links that two other ranks use between themselves are shared, not this rank's (needs three ranks).
  if (p >= 3) {
    sg4::Host* a = hosts[static_cast<std::size_t>((rank + 1) % p)];
    sg4::Host* b = hosts[static_cast<std::size_t>((rank + 2) % p)];
    for (sg4::Link* l : route_links(a, b)) own.erase(l);
    for (sg4::Link* l : route_links(b, a)) own.erase(l);
  }
  return {own.begin(), own.end()};
}

const std::vector<sg4::Link*>& SlowLinks::links_of(int rank) {
  auto it = own_.find(rank);
  if (it == own_.end()) it = own_.emplace(rank, own_links(hosts_, rank)).first;
  return it->second;
}

void SlowLinks::apply(sg4::Link* link) {
  LinkState& s = state_[link];
  double factor = 1;
  for (const auto& [rank, f] : s.factors) factor = std::max(factor, f);
  link->set_bandwidth(s.base_Bps / factor);
}

void SlowLinks::enter_step(int rank, std::int64_t step) {
  const double f = model_.link_factor(rank, step);
  if (f == factor(rank)) return;
  factor_[rank] = f;
  for (sg4::Link* link : links_of(rank)) {
    auto [it, added] = state_.try_emplace(link);
    if (added) it->second.base_Bps = link->get_bandwidth();
    if (f == 1.0)
      it->second.factors.erase(rank);
    else
      it->second.factors[rank] = f;
    apply(link);
  }
}

double SlowLinks::factor(int rank) const {
  const auto it = factor_.find(rank);
  return it == factor_.end() ? 1.0 : it->second;
}

double SlowLinks::own_bandwidth_Bps(int rank) {
  double slowest = 0;
  for (sg4::Link* link : links_of(rank)) {
    const auto it = state_.find(link);
    const double base = it == state_.end() ? link->get_bandwidth() : it->second.base_Bps;
    slowest = slowest == 0 ? base : std::min(slowest, base);
  }
  return slowest;
}

}  // namespace quorum
