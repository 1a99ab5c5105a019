#include "sim/model/FlowNetwork.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace quorum {

FlowNetwork::LinkId FlowNetwork::add_link(double capacity_Bps) {
  if (!(capacity_Bps > 0)) throw std::invalid_argument("FlowNetwork: a link's capacity must be positive");
  links_.push_back(Link{});
  links_.back().capacity = capacity_Bps;
  return static_cast<LinkId>(links_.size() - 1);
}

void FlowNetwork::set_capacity(LinkId link, double capacity_Bps, double now) {
  if (!(capacity_Bps > 0)) throw std::invalid_argument("FlowNetwork: a link's capacity must be positive");
  Link& l = links_[link];
  const bool was_binding = l.binds();
  l.capacity = capacity_Bps;
  touch(link, was_binding);
  if (l.modified) wants_solve(now);
}

FlowNetwork::FlowId FlowNetwork::start(double now, std::span<const LinkId> route, double bytes, double latency_s,
                                       double penalty, double bound_Bps) {
  if (!(penalty > 0)) throw std::invalid_argument("FlowNetwork: a flow's penalty must be positive");
  FlowId id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
    new_rate_.push_back(0);
  }
  Flow& f = flows_[id];
  f.route.assign(route.begin(), route.end());
  f.slot.assign(route.size(), 0);
  f.remaining = std::max(bytes, 0.0);
  f.last = now;
  f.rate = 0;
  f.penalty = penalty;
  f.bound = bound_Bps > 0 ? bound_Bps : kNever;
  f.phase = Phase::Latency;
  ++f.version;
  ++in_flight_;
  if (latency_s > 0)
    latency_ends_.push({now + latency_s, id, f.version});
  else
    begin_moving(id, now);
  return id;
}

void FlowNetwork::wants_solve(double now) {
  if (!pending_) pending_time_ = now;
  pending_ = true;
}

// Past its latency: it now shares its links.
void FlowNetwork::begin_moving(FlowId id, double now) {
  Flow& f = flows_[id];
  f.phase = Phase::Moving;
  f.last = now;
  if (f.route.empty() || f.remaining <= 0) {  // nothing to share: it ends at its bound, or at once
    f.rate = f.remaining > 0 && std::isfinite(f.bound) ? f.bound : 0;
    completions_.push({f.rate > 0 ? now + f.remaining / f.rate : now, id, f.version});
    return;
  }
  f.on_links = true;
  for (std::size_t i = 0; i < f.route.size(); ++i) {
    Link& l = links_[f.route[i]];
    const bool was_binding = l.binds();
    f.slot[i] = static_cast<std::uint32_t>(l.moving.size());
    l.moving.push_back(id);
    l.bound_sum += f.bound;
    touch(f.route[i], was_binding);
  }
  seeds_.push_back(id);
  wants_solve(now);
}

void FlowNetwork::end_moving(FlowId id, double now) {
  Flow& f = flows_[id];
  if (!f.on_links) return;
  f.on_links = false;
  for (std::size_t i = 0; i < f.route.size(); ++i) {
    const LinkId link = f.route[i];
    Link& l = links_[link];
    const bool was_binding = l.binds();
    const FlowId moved = l.moving.back();
    l.moving[f.slot[i]] = moved;
    if (moved != id) {
      Flow& m = flows_[moved];
      for (std::size_t j = 0; j < m.route.size(); ++j)
        if (m.route[j] == link) m.slot[j] = f.slot[i];
    }
    l.moving.pop_back();
    l.bound_sum = l.moving.empty() ? 0 : l.bound_sum - f.bound;
    touch(link, was_binding);
  }
  wants_solve(now);
}

// A link whose flows or capacity changed: its flows are re-solved if it binds now or did before.
void FlowNetwork::touch(LinkId link, bool was_binding) {
  Link& l = links_[link];
  if (l.modified || !(was_binding || l.binds())) return;
  l.modified = true;
  modified_.push_back(link);
}

void FlowNetwork::release(FlowId id) {
  Flow& f = flows_[id];
  f.phase = Phase::Free;
  f.rate = 0;
  ++f.version;
  f.route.clear();
  f.slot.clear();
  free_.push_back(id);
  --in_flight_;
}

double FlowNetwork::next_event() {
  while (!completions_.empty() && completions_.top().version != flows_[completions_.top().flow].version)
    completions_.pop();
  double t = pending_ ? pending_time_ : kNever;
  if (!latency_ends_.empty()) t = std::min(t, latency_ends_.top().time);
  if (!completions_.empty()) t = std::min(t, completions_.top().time);
  return t;
}

void FlowNetwork::advance(double now, std::vector<FlowId>& ended) {
  const double due = now + kTimePrecision;
  while (!latency_ends_.empty() && latency_ends_.top().time <= due) {
    const Event e = latency_ends_.top();
    latency_ends_.pop();
    if (e.version == flows_[e.flow].version && flows_[e.flow].phase == Phase::Latency) begin_moving(e.flow, now);
  }
  while (!completions_.empty() && completions_.top().time <= due) {
    const Event e = completions_.top();
    completions_.pop();
    Flow& f = flows_[e.flow];
    if (e.version != f.version || f.phase != Phase::Moving) continue;
    end_moving(e.flow, now);
    ended.push_back(e.flow);
    release(e.flow);
  }
  if (pending_) solve(now);
}

void FlowNetwork::solve(double now) {
  pending_ = false;
  ++solves_;
  ++stamp_;
  comp_flows_.clear();
  comp_links_.clear();
  for (const LinkId link : modified_) {
    links_[link].modified = false;
    for (const FlowId f : links_[link].moving) gather(f);
  }
  modified_.clear();
  for (const FlowId f : seeds_)
    if (flows_[f].phase == Phase::Moving) gather(f);
  seeds_.clear();
  fill();
  for (const FlowId f : comp_flows_) set_rate(f, new_rate_[f], now);
}

// Adds to the component being solved every flow coupled to `seed` through links that can bind.
void FlowNetwork::gather(FlowId seed) {
  if (flows_[seed].stamp == stamp_) return;
  flows_[seed].stamp = stamp_;
  std::size_t next = comp_flows_.size();
  comp_flows_.push_back(seed);
  while (next < comp_flows_.size()) {
    const Flow& f = flows_[comp_flows_[next++]];
    for (const LinkId link : f.route) {
      Link& l = links_[link];
      if (l.stamp == stamp_ || !l.binds()) continue;
      l.stamp = stamp_;
      comp_links_.push_back(link);
      for (const FlowId g : l.moving) {
        if (flows_[g].stamp == stamp_) continue;
        flows_[g].stamp = stamp_;
        comp_flows_.push_back(g);
      }
    }
  }
}

// Progressive filling over the gathered component: the lowest level at which a link fills or a flow reaches its
// bound fixes the flows concerned; the others go on rising. Levels only rise, so stale heap entries are skipped.
void FlowNetwork::fill() {
  levels_.clear();
  const auto push = [&](Level e) {
    levels_.push_back(e);
    std::push_heap(levels_.begin(), levels_.end(), std::greater<>{});
  };
  for (const LinkId link : comp_links_) {
    Link& l = links_[link];
    l.rem = l.capacity;
    l.usage = 0;
    for (const FlowId f : l.moving) l.usage += 1 / flows_[f].penalty;
    l.unfixed = static_cast<std::uint32_t>(l.moving.size());
    ++l.version;
    push({l.rem / l.usage, link, l.version, false});
  }
  for (const FlowId id : comp_flows_) {
    Flow& f = flows_[id];
    f.fixed = false;
    if (std::isfinite(f.bound)) push({f.bound * f.penalty, id, 0, true});
  }
  const auto fix = [&](FlowId id, double rate) {
    Flow& f = flows_[id];
    f.fixed = true;
    new_rate_[id] = rate;
    for (const LinkId link : f.route) {
      Link& l = links_[link];
      if (l.stamp != stamp_) continue;  // a link that cannot bind
      l.rem -= rate;
      --l.unfixed;
      if (l.unfixed == 0) continue;
      l.usage -= 1 / f.penalty;
      if (!(l.usage > 0)) {  // rounding: count again
        l.usage = 0;
        for (const FlowId g : l.moving)
          if (!flows_[g].fixed) l.usage += 1 / flows_[g].penalty;
      }
      ++l.version;
      push({std::max(l.rem, 0.0) / l.usage, link, l.version, false});
    }
  };
  while (!levels_.empty()) {
    std::pop_heap(levels_.begin(), levels_.end(), std::greater<>{});
    const Level e = levels_.back();
    levels_.pop_back();
    if (e.is_flow) {
      if (!flows_[e.id].fixed) fix(e.id, flows_[e.id].bound);
      continue;
    }
    const Link& l = links_[e.id];
    if (e.version != l.version || l.unfixed == 0) continue;
    // `fix` changes l.moving's flows' state only, not the vector.
    for (const FlowId g : l.moving)
      if (!flows_[g].fixed) fix(g, e.level / flows_[g].penalty);
  }
}

void FlowNetwork::set_rate(FlowId id, double rate, double now) {
  Flow& f = flows_[id];
  if (rate == f.rate) return;
  f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.last));
  f.last = now;
  f.rate = rate;
  ++f.version;
  if (rate > 0) completions_.push({now + f.remaining / rate, id, f.version});
}

}  // namespace quorum
