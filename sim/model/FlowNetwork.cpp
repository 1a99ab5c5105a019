#include "sim/model/FlowNetwork.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "sim/model/FreeSlots.hpp"

namespace quorum {

namespace {

// A link is over capacity only past this relative margin: loads summed in another order differ by rounding.
constexpr double kOverflowMargin = 1e-9;
// A link is taken as full, for solve_locally(), within this relative margin of its capacity: far above the rounding of
// a filling's sums, so a link with more room than this is full at no level of the filling.
constexpr double kFullMargin = 1e-6;

// What a link of one class carries as a filling finds it: its capacity less its class's flows at their rate is left
// (fix()'s subtraction), and its capacity less that is used. Both a local solve and the solve after a filling ask it.
double one_class_use(double capacity, std::uint32_t members, double rate) {
  return capacity - (capacity - members * rate);
}

// A link of few flows that a solve finds under half full leaves the solve (solve()).
bool leaves_solve(std::size_t flows, double capacity, double used) {
  return flows <= FlowNetwork::kFewFlows && used < 0.5 * capacity;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::size_t FlowNetwork::KeyHash::operator()(const std::vector<std::uint64_t>& key) const {
  std::uint64_t h = key.size();
  for (const std::uint64_t v : key) h = mix(h ^ v);
  return static_cast<std::size_t>(h);
}

void FlowNetwork::set_solve_window(double window_s) {
  if (!(window_s >= 0) || !std::isfinite(window_s))
    throw std::invalid_argument("FlowNetwork: the solve window must be a finite number of seconds >= 0");
  solve_window_ = window_s;
}

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
  ++structure_;
  patchable_ = false;  // the fill arrays hold the old capacity: the next solve gathers anew (changes are rare)
  only_flows_changed_ = false;  // the links' use was the old capacity's: the next solve fills (changes are rare)
  refresh(link, now);
  if (links_[link].solved && (was_binding || links_[link].binds())) {
    mark_modified(link);
    wants_solve(now);
  }
}

FlowNetwork::FlowId FlowNetwork::start(double now, std::span<const LinkId> route, double bytes, double latency_s,
                                       double penalty, double bound_Bps) {
  if (!(penalty > 0)) throw std::invalid_argument("FlowNetwork: a flow's penalty must be positive");
  if (std::isnan(bytes)) throw std::invalid_argument("FlowNetwork: a flow's bytes must be a number (NaN given)");
  const FlowId id = take_free_slot(flows_, free_flows_, "FlowNetwork: flows");
  Flow& f = flows_[id];
  f.route.assign(route.size(), [route](std::size_t i) { return Hop{route[i], 0}; });  // places: begin_moving()
  f.remaining = std::max(bytes, 0.0);
  f.penalty = penalty;
  f.bound = bound_Bps > 0 ? bound_Bps : kNever;
  f.phase = Phase::Latency;
  ++f.version;
  ++in_flight_;
  if (latency_s > 0)
    latency_ends_.push({now + latency_s, id, f.version});
  else
    past_latency(id, now);
  return id;
}

double FlowNetwork::rate(FlowId flow) const {
  const Flow& f = flows_[flow];
  if (f.phase != Phase::Moving) return 0;
  if (!f.on_links) return f.solo_rate;
  return f.cls == kNoClass ? 0 : clocks_[f.cls].rate;
}

void FlowNetwork::wants_solve(double now) {
  if (!pending_) pending_time_ = now;
  pending_ = true;
}

// Past its latency: it shares its links from now on, or under a solve window from the window's solve on.
void FlowNetwork::past_latency(FlowId id, double now) {
  const Flow& f = flows_[id];
  if (solve_window_ > 0 && !f.route.empty() && f.remaining > 0) {
    starting_.push_back(id);
    wants_solve(now);
  } else {
    begin_moving(id, now);
  }
}

// It now shares its links.
void FlowNetwork::begin_moving(FlowId id, double now) {
  Flow& f = flows_[id];
  f.phase = Phase::Moving;
  if (f.route.empty() || f.remaining <= 0) {  // nothing to share: it ends at its bound, or at once
    f.solo_rate = f.remaining > 0 && std::isfinite(f.bound) ? f.bound : 0;
    solo_ends_.push({f.solo_rate > 0 ? now + f.remaining / f.solo_rate : now, id, f.version});
    return;
  }
  f.on_links = true;
  f.unsolved = 0;
  for (Hop& hop : f.route) {
    Link& l = links_[hop.link];
    const bool was_binding = l.binds();
    hop.slot = static_cast<std::uint32_t>(l.moving.size());
    l.moving.push_back(id);
    if (std::isfinite(f.bound))
      l.bound_sum += f.bound;
    else
      ++l.unbounded;
    if (l.solved && l.binds() != was_binding) {
      ++structure_;
      only_flows_changed_ = false;
      reshape(hop.link);
    }
    if (l.unsolved_binding) ++f.unsolved;
  }
  for (const Hop& hop : f.route) refresh(hop.link, now);
  join(id, f.remaining, now);
}

// It ended: it leaves its class and its links.
void FlowNetwork::end_moving(FlowId id, double now) {
  if (!flows_[id].on_links) return;
  if (flows_[id].cls != kNoClass) leave(id, now);
  Flow& f = flows_[id];
  f.on_links = false;
  for (const Hop& hop : f.route) {
    Link& l = links_[hop.link];
    const bool was_binding = l.binds();
    const FlowId moved = l.moving.back();
    l.moving[hop.slot] = moved;
    if (moved != id)
      for (Hop& other : flows_[moved].route)
        if (other.link == hop.link) other.slot = hop.slot;
    l.moving.pop_back();
    if (!std::isfinite(f.bound)) --l.unbounded;
    l.bound_sum = l.moving.empty() ? 0 : l.bound_sum - (std::isfinite(f.bound) ? f.bound : 0);
    if (l.solved && l.binds() != was_binding) {
      ++structure_;
      only_flows_changed_ = false;
      reshape(hop.link);
    }
  }
  for (const Hop& hop : flows_[id].route) refresh(hop.link, now);
}

// A link whose flows or capacity changed: whether it is solved, and whether it must be checked after the solve.
void FlowNetwork::refresh(LinkId id, double now) {
  Link& l = links_[id];
  if (!l.solved && l.binds() && (l.moving.size() > kFewFlows || l.unbounded > 0))
    set_solved(id, true, now);
  else if (l.solved && (l.moving.empty() || (!l.binds() && l.moving.size() <= kFewFlows)))
    set_solved(id, false, now);
  count_unsolved(id);
  if (!links_[id].unsolved_binding) return;
  share_headroom(id);
  list_for_check(id, now);
}

// An unsolved link that can bind is checked after the next solve.
void FlowNetwork::list_for_check(LinkId id, double now) {
  Link& l = links_[id];
  if (l.listed_for_check) return;
  l.listed_for_check = true;
  to_check_.push_back(id);
  wants_solve(now);
}

// Gives each flow on the unsolved link an allowance, its rate and an equal part of the capacity its flows leave (so
// the allowances add up to at most the capacity), and lowers each flow's class's safe rate to it. Returns the load.
double FlowNetwork::share_headroom(LinkId id) {
  Link& l = links_[id];
  const double total = load(l);
  l.headroom_part = std::max(0.0, l.capacity - total) / static_cast<double>(l.moving.size());
  for (const FlowId g : l.moving) {
    const ClassId c = flows_[g].cls;
    if (c != kNoClass) classes_[c].safe_rate = std::min(classes_[c].safe_rate, clocks_[c].rate + l.headroom_part);
  }
  return total;
}

// Keeps each flow's count of the route links that can bind but are not solved.
void FlowNetwork::count_unsolved(LinkId id) {
  Link& l = links_[id];
  const bool unsolved_binding = !l.solved && l.binds();
  if (unsolved_binding == l.unsolved_binding) return;
  l.unsolved_binding = unsolved_binding;
  for (const FlowId g : l.moving) {
    if (unsolved_binding)
      ++flows_[g].unsolved;
    else
      --flows_[g].unsolved;
  }
}

// The link joins or leaves the solve: the flows crossing it change class (their key gains or loses it).
void FlowNetwork::set_solved(LinkId id, bool solved, double now) {
  Link& l = links_[id];
  l.solved = solved;
  ++structure_;
  // No class has it in its key yet (joining), or none will (leaving): what classes had it before does not count.
  used_of(id) = 0;
  if (l.counted_in == batch_) l.change = 0;
  count_unsolved(id);
  for (const FlowId g : links_[id].moving)
    if (flows_[g].cls != kNoClass) reclassify(g, now);
  mark_modified(id);
  wants_solve(now);
}

void FlowNetwork::mark_modified(LinkId id) {
  Link& l = links_[id];
  if (!l.solved || l.modified) return;
  l.modified = true;
  modified_.push_back(id);
}

// Completes key_scratch_, which holds a class's solved links in ascending order, into the class's key.
void FlowNetwork::end_key(double penalty, double bound) {
  key_scratch_.push_back(std::bit_cast<std::uint64_t>(penalty));
  key_scratch_.push_back(std::bit_cast<std::uint64_t>(bound));
}

// The flow joins the class of its solved links, penalty and bound, `remaining` bytes from its end.
void FlowNetwork::join(FlowId id, double remaining, double now) {
  key_scratch_.clear();
  for (const Hop& hop : flows_[id].route)
    if (links_[hop.link].solved) key_scratch_.push_back(hop.link);
  std::sort(key_scratch_.begin(), key_scratch_.end());
  end_key(flows_[id].penalty, flows_[id].bound);
  auto [it, added] = class_of_key_.try_emplace(key_scratch_, kNoClass);
  if (added) {
    const ClassId c = take_free_slot(classes_, free_classes_, "FlowNetwork: classes");
    if (end_slots_.size() < classes_.size()) end_slots_.resize(classes_.size(), kNotQueued);
    if (clocks_.size() < classes_.size()) clocks_.resize(classes_.size());
    it->second = c;
    Class& k = classes_[c];
    k.key.assign(key_scratch_.begin(), key_scratch_.end() - 2);
    k.penalty = flows_[id].penalty;
    k.bound = flows_[id].bound;
    k.members = 0;
    k.queue.clear();
    k.alive = true;
    k.safe_rate = kNever;
    // With no solved link it moves at its bound; else the solve sets its rate.
    clocks_[c] = {k.key.empty() && std::isfinite(k.bound) ? k.bound : 0, 0, now, kNoTarget};
    for (const LinkId l : k.key) {
      links_[l].classes.push_back(c);
      reshape(l);
    }
    if (!k.key.empty()) {
      seeds_.push_back(c);
      ++structure_;
    }
  }
  const ClassId c = it->second;
  Class& k = classes_[c];
  if (!k.key.empty()) touch(c);
  Flow& f = flows_[id];
  ClassClock& clock = clocks_[c];
  sync(clock, now);
  f.cls = c;
  ++f.version;
  f.target = clock.progress + remaining;
  ++k.members;
  if (FillClass* fill = fill_class_of(c)) set_fill_members(*fill, k.members);
  k.queue.push_back({f.target, id, f.version});
  std::push_heap(k.queue.begin(), k.queue.end(), std::greater<>{});
  note_next_target(c);
  for (const LinkId l : k.key) mark_modified(l);
  if (!k.key.empty()) wants_solve(now);
  // Its rate may differ from its old class's: the links it does not solve share their headroom again, and are
  // checked after the solve.
  if (f.unsolved > 0)
    for (const Hop& hop : f.route) {
      if (!links_[hop.link].unsolved_binding) continue;
      share_headroom(hop.link);
      list_for_check(hop.link, now);
    }
  schedule(c);
}

// The flow leaves its class; returns the bytes it has left.
double FlowNetwork::leave(FlowId id, double now) {
  Flow& f = flows_[id];
  const ClassId c = f.cls;
  Class& k = classes_[c];
  if (!k.key.empty()) touch(c);
  ClassClock& clock = clocks_[c];
  sync(clock, now);
  const double remaining = std::max(0.0, f.target - clock.progress);
  const bool was_next = !k.queue.empty() && k.queue.front().flow == id;
  f.cls = kNoClass;
  ++f.version;
  --k.members;
  if (FillClass* fill = fill_class_of(c)) set_fill_members(*fill, k.members);
  for (const LinkId l : k.key) mark_modified(l);
  if (!k.key.empty()) wants_solve(now);
  if (k.members > 0) {
    if (was_next) {
      drop_left_flows(c);
      schedule(c);
    }
    return remaining;
  }
  key_scratch_.assign(k.key.begin(), k.key.end());
  end_key(k.penalty, k.bound);
  class_of_key_.erase(key_scratch_);
  if (!k.key.empty()) ++structure_;
  for (const LinkId l : k.key)  // its flows' use of its links goes, whatever class takes its id
    if (links_[l].binds()) count_change(l, -(k.solved_members * clock.rate), false);
  for (const LinkId l : k.key) {
    auto& list = links_[l].classes;
    const auto at = std::find(list.begin(), list.end(), c);
    *at = list.back();
    list.pop_back();
    reshape(l);
  }
  if (FillClass* fill = fill_class_of(c)) {  // its place in the fill arrays stays, a hole, until they are gathered anew
    if (std::isfinite(fill->bound) && !fill->capped_by_link) bounds_patched_ = true;  // its bound leaves the filling
    unused_places_ += fill->links;
    *fill = FillClass{};
    comp_classes_[k.local] = kNoClass;
    ++holes_;
  }
  k.stamp = 0;  // so that a class taking its id is not taken as laid out
  drop_end(c);
  k.alive = false;
  k.queue.clear();
  clock.next_target = kNoTarget;
  free_classes_.push_back(c);
  return remaining;
}

void FlowNetwork::reclassify(FlowId id, double now) { join(id, leave(id, now), now); }

// Brings the class's clock to `now`.
void FlowNetwork::sync(ClassClock& clock, double now) {
  if (now != clock.last) clock.progress += clock.rate * (now - clock.last);
  clock.last = now;
}

// Copies the front of the class's queue, a flow of the class, to its clock (after the queue's front changed).
void FlowNetwork::note_next_target(ClassId c) {
  const Class& k = classes_[c];
  clocks_[c].next_target = k.queue.empty() ? kNoTarget : k.queue.front().target;
}

// Pops the entries of flows that left the class from the front of its queue.
void FlowNetwork::drop_left_flows(ClassId c) {
  Class& k = classes_[c];
  while (!k.queue.empty() && k.queue.front().version != flows_[k.queue.front().flow].version) {
    std::pop_heap(k.queue.begin(), k.queue.end(), std::greater<>{});
    k.queue.pop_back();
  }
  note_next_target(c);
}

// Schedules the class's next end (its nearest target at its rate). The front of its queue is a flow of the class: a
// flow's entry goes stale only as it leaves, which drops it if it is the front (leave()), and an end pops the stale
// entries it comes to (advance()); so a change of rate reads no flow, nor the class's record, its clock holding the
// front's target (Prague at 16,384 ranks: hundreds a solve).
void FlowNetwork::schedule(ClassId c) {
  const ClassClock& clock = clocks_[c];
  if (std::isnan(clock.next_target) || !(clock.rate > 0)) {
    drop_end(c);
    return;
  }
  const double next_end = clock.last + (clock.next_target - clock.progress) / clock.rate;
  std::uint32_t& slot = end_slots_[c];
  if (slot == kNotQueued) {
    slot = static_cast<std::uint32_t>(ends_.size());
    ends_.push_back({next_end, c});
  } else {
    ends_[slot].time = next_end;
  }
  place_end(slot);
}

// Moves the entry at `slot` up or down to its place in ends_.
void FlowNetwork::place_end(std::uint32_t slot) {
  const auto put = [&](std::uint32_t at, const End& e) {
    ends_[at] = e;
    end_slots_[e.cls] = at;
  };
  const End e = ends_[slot];
  while (slot > 0 && e < ends_[(slot - 1) / 2]) {
    put(slot, ends_[(slot - 1) / 2]);
    slot = (slot - 1) / 2;
  }
  const auto size = static_cast<std::uint32_t>(ends_.size());
  for (;;) {
    std::uint32_t child = 2 * slot + 1;
    if (child >= size) break;
    if (child + 1 < size && ends_[child + 1] < ends_[child]) ++child;
    if (!(ends_[child] < e)) break;
    put(slot, ends_[child]);
    slot = child;
  }
  put(slot, e);
}

void FlowNetwork::drop_end(ClassId c) {
  const std::uint32_t slot = end_slots_[c];
  if (slot == kNotQueued) return;
  end_slots_[c] = kNotQueued;
  const End last = ends_.back();
  ends_.pop_back();
  if (last.cls == c) return;
  ends_[slot] = last;
  place_end(slot);  // which records its place
}

void FlowNetwork::set_class_rate(ClassId c, double rate, double now) {
  if (rate == clocks_[c].rate) return;
  if (FillClass* fill = fill_class_of(c)) fill->rate = rate;
  set_clock_rate(c, rate, now);
}

// The class's rate changes (to another): its clock and its next end; its entry in the fill arrays is the caller's.
void FlowNetwork::set_clock_rate(ClassId c, double rate, double now) {
  ClassClock& clock = clocks_[c];
  sync(clock, now);
  clock.rate = rate;
  schedule(c);
}

void FlowNetwork::release(FlowId id) {
  Flow& f = flows_[id];
  f.phase = Phase::Free;
  f.solo_rate = 0;
  f.cls = kNoClass;
  f.on_links = false;
  ++f.version;
  f.route.clear();
  free_flows_.push_back(id);
  --in_flight_;
}

double FlowNetwork::next_event() {
  while (!solo_ends_.empty() && solo_ends_.top().version != flows_[solo_ends_.top().id].version) solo_ends_.pop();
  double t = pending_ ? pending_time_ + solve_window_ : kNever;
  if (!latency_ends_.empty()) t = std::min(t, latency_ends_.top().time);
  if (!solo_ends_.empty()) t = std::min(t, solo_ends_.top().time);
  if (!ends_.empty()) t = std::min(t, ends_.front().time);
  return t;
}

void FlowNetwork::advance(double now, std::vector<FlowId>& ended) {
  const double due = now + kTimePrecision;
  while (!latency_ends_.empty() && latency_ends_.top().time <= due) {
    const Event e = latency_ends_.top();
    latency_ends_.pop();
    if (e.version == flows_[e.id].version && flows_[e.id].phase == Phase::Latency) past_latency(e.id, now);
  }
  ending_.clear();
  while (!solo_ends_.empty() && solo_ends_.top().time <= due) {
    const Event e = solo_ends_.top();
    solo_ends_.pop();
    if (e.version == flows_[e.id].version && flows_[e.id].phase == Phase::Moving) ending_.push_back({e.time, e.id});
  }
  while (!ends_.empty() && ends_.front().time <= due) {
    const auto [first_end, c] = ends_.front();
    Class& k = classes_[c];
    ClassClock& clock = clocks_[c];
    sync(clock, now);
    // Its nearest target is due: that flow ends now, with those within the time precision.
    const double reach = clock.progress + clock.rate * kTimePrecision;
    bool first = true;
    while (!k.queue.empty()) {
      const Member m = k.queue.front();
      if (m.version != flows_[m.flow].version) {
        std::pop_heap(k.queue.begin(), k.queue.end(), std::greater<>{});
        k.queue.pop_back();
        continue;
      }
      if (!first && m.target > reach) break;
      std::pop_heap(k.queue.begin(), k.queue.end(), std::greater<>{});
      k.queue.pop_back();
      ending_.push_back({first ? first_end : now + (m.target - clock.progress) / clock.rate, m.flow});
      first = false;
    }
    note_next_target(c);
    schedule(c);
  }
  // In the order of their ends (no two entries alike: ids differ), which they often come in already (eager-SGD at
  // 1,024 ranks: the check before the sort took 0.8% of a step's instructions away).
  if (!std::is_sorted(ending_.begin(), ending_.end())) std::sort(ending_.begin(), ending_.end());
  for (const auto& [time, id] : ending_) {
    end_moving(id, now);
    ended.push_back(id);
    release(id);
  }
  if (pending_ && now + kTimePrecision >= pending_time_ + solve_window_) {
    for (const FlowId id : starting_) begin_moving(id, now);
    starting_.clear();
    solve(now);
  }
}

void FlowNetwork::solve(double now) {
  // Links of few flows the last solve found under half full leave the solve: their flows' classes merge.
  std::sort(slack_.begin(), slack_.end());  // in id order, whatever the component's order (so are overflows)
  for (const LinkId l : slack_)
    if (links_[l].solved && links_[l].moving.size() <= kFewFlows) set_solved(l, false, now);
  slack_.clear();
  for (;;) {
    ++solves_;
    rose_.clear();
    if (solve_locally(now)) {
      ++local_solves_done_;
    } else if (gather_component()) {
      fill();
      // Local pointers (see fill()); set_clock_rate() and settle_own_link() resize none of these arrays.
      FillClass* const classes = fill_classes_.data();
      const ClassId* const class_ids = comp_classes_.data();
      const std::size_t class_count = comp_classes_.size();
      for (std::size_t i = 0; i < class_count; ++i) {
        FillClass& f = classes[i];
        const double rate = f.new_rate;
        f.new_rate = 0;  // ready for the next filling
        if (rate == f.rate) continue;
        if (rate > f.rate) rose_.push_back(class_ids[i]);
        f.rate = rate;
        set_clock_rate(class_ids[i], rate, now);
        if (sole_links_apart_)
          for (std::uint32_t j = f.first_link + f.shared_links; j < f.first_link + f.links; ++j)
            settle_own_link(fill_class_links_[j]);
      }
      FillLink* const links = fill_links_.data();
      FillLinkLoad* const loads = fill_link_loads_.data();
      const LinkId* const link_ids = comp_links_.data();
      // What the filling left on the links it moved: each one's use, whether it leaves the solve, and its state readied
      // for the next filling.
      const auto settle = [&](std::uint32_t i) {
        FillLink& f = links[i];
        FillLinkLoad& l = loads[i];
        l.used = l.capacity - f.rem;
        if (leaves_solve(l.flows, l.capacity, l.used)) slack_.push_back(link_ids[i]);
        ready_for_filling(f, l);  // here: read_changes() readies only the links it sums again
      };
      if (sole_links_apart_) {
        // The links of one class kept their state (fix()): those whose class's rate changed, above, and those whose
        // use may differ from what their class carries now are worked out; the others carry what they did.
        for (const std::uint32_t i : multi_links_) settle(i);
        for (const std::uint32_t i : to_settle_) settle_own_link(i);
      } else {
        for (const std::uint32_t i : to_settle_) fill_link_loads_[i].to_settle = false;
        const std::size_t link_count = comp_links_.size();
        for (std::size_t i = 0; i < link_count; ++i)
          if (links[i].classes != 0) settle(static_cast<std::uint32_t>(i));  // else left the solve or binds no more
      }
      to_settle_.clear();
    }
    rose_sort_.sort(rose_);  // checked in id order, whatever the component's order
    end_batch();
    if (!check_overflows(now)) break;
  }
  pending_ = false;
}

// The class's flows changed since the last solve: its rate is solved again, and the flows it had at the last solve are
// recorded (for a class made since, none; a class made on an id freed in this batch counts the old class's, at its new
// rate of 0: nothing either).
void FlowNetwork::touch(ClassId c) {
  Class& k = classes_[c];
  if (k.changed_in == batch_) return;
  k.changed_in = batch_;
  k.solved_members = k.members;
  touched_.push_back(c);
}

// Adds to the link's change of use in this batch (solve_locally()), and counts a touched class that crosses it.
void FlowNetwork::count_change(LinkId id, double change, bool touched_class) {
  Link& l = links_[id];
  if (l.counted_in != batch_) {
    l.counted_in = batch_;
    l.change = 0;
    l.touched_classes = 0;
    touched_links_.push_back(id);
  }
  l.change += change;
  if (touched_class) ++l.touched_classes;
}

// Whether a class or link (its record, its id) is among the fill arrays (comp, comp_classes_ or comp_links_): gathered
// since they were last cleared, and its index there not taken since by another.
template <class Record, class Id>
bool FlowNetwork::among_fill_arrays(const Record& r, const std::vector<Id>& comp, Id id) const {
  return r.stamp == stamp_ && r.local < comp.size() && comp[r.local] == id;
}

// The class's entry in the fill arrays, if it is among them.
FlowNetwork::FillClass* FlowNetwork::fill_class_of(ClassId c) {
  return among_fill_arrays(classes_[c], comp_classes_, c) ? &fill_classes_[classes_[c].local] : nullptr;
}

// A class's flows among the fill arrays: its weight changes, and its links' weights are summed again.
void FlowNetwork::set_fill_members(FillClass& f, std::uint32_t members) {
  f.members = members;
  f.weight = f.members / f.penalty;
  for (std::uint32_t i = f.first_link; i < f.first_link + f.links; ++i) reread(fill_class_links_[i]);
}

// The link's classes' weights are summed again, and its state readied, by the next read_changes(). Listed once: a
// link listed twice would be summed twice and found twice by fill() and order_sole_links().
void FlowNetwork::reread(std::uint32_t local) {
  FillLinkLoad& load = fill_link_loads_[local];
  if (load.reread) return;
  load.reread = true;
  reread_links_.push_back(local);
}

// Where a solved link's use is kept: beside the fill arrays while it is among them, else in its record.
double& FlowNetwork::used_of(LinkId id) {
  Link& l = links_[id];
  return among_fill_arrays(l, comp_links_, id) ? fill_link_loads_[l.local].used : l.used;
}

// The solved links changed and the classes made since the last solve, solved now.
void FlowNetwork::forget_changes() {
  for (const LinkId link : modified_) links_[link].modified = false;
  modified_.clear();
  seeds_.clear();
}

void FlowNetwork::end_batch() {
  touched_.clear();
  touched_links_.clear();
  ++batch_;
  only_flows_changed_ = true;
}

// The rate a filling gives the class if no link it shares with other classes fills at or below it: its bound, or the
// level of its narrowest link of its own, computed as fill() computes them (NaN if it has neither).
double FlowNetwork::own_rate(const Class& k) const {
  bool capped_by_link = false;
  double level = kNever;  // of its narrowest link of its own (of two at one level, either gives the same rate)
  const double weight = k.members / k.penalty;
  for (const LinkId id : k.key) {
    const Link& l = links_[id];
    if (!l.binds()) continue;
    if (l.capacity <= k.bound) capped_by_link = true;
    if (l.classes.size() == 1) level = std::min(level, l.capacity / weight);  // capacity left, usage (read_changes())
  }
  const bool bound_enters = std::isfinite(k.bound) && !capped_by_link;
  if (bound_enters && k.bound * k.penalty <= level) return k.bound;  // a bound at a link's level goes first
  if (level == kNever) return std::numeric_limits<double>::quiet_NaN();
  return capped_by_link ? std::min(level / k.penalty, k.bound) : level / k.penalty;
}

// Where since the last solve only flows changed (and links joined or left the solve), each changed class gets the rate
// of its own link or its bound, and every link it shares with other classes has room (kFullMargin) before the change
// and after, a filling would change no other class's rate: every other class keeps the link or bound that fixed it,
// which no changed class crosses, and the links that fix classes fill in the same order with the same classes at the
// same levels (in a progressive filling a link's room only shrinks as the level rises, so a link with room at the end
// was never full on the way, and fixed nothing). Then the changed classes' rates are set without gathering or filling,
// to the bit what a filling gives them (own_rate), and the links' use is updated by the difference. False where that
// does not hold (or local solves are off), and nothing is solved.
bool FlowNetwork::solve_locally(double now) {
  if (!local_solves_ || !only_flows_changed_ || touched_.empty() || !local_solve_holds()) return false;
  set_changed_rates(now);
  return true;
}

// Whether the changed classes each have a rate of their own (next_rate) and their shared links room before and after.
// What it counts (each class's next rate, each link's change of use) is the batch's, set anew by the next batch.
bool FlowNetwork::local_solve_holds() {
  for (const ClassId c : touched_) {  // those that ended counted their change as they did (leave())
    Class& k = classes_[c];
    if (!k.alive || k.key.empty()) continue;
    k.next_rate = own_rate(k);
    if (std::isnan(k.next_rate)) return false;
    const double change = k.members * k.next_rate - k.solved_members * clocks_[c].rate;
    for (const LinkId id : k.key)
      if (links_[id].binds()) count_change(id, change, true);
  }
  for (const LinkId id : touched_links_) {
    const Link& l = links_[id];
    const double room = l.capacity * (1 - kFullMargin);
    const double used = used_of(id);
    // A class left unchanged may have this link as its narrowest: it must not have been full.
    if (l.classes.size() > l.touched_classes && !(used < room)) return false;
    if (l.classes.size() < 2) continue;  // a link of one changed class: its level is that class's own
    if (!(used + l.change < room)) return false;
    // A link of few flows leaves the solve if a filling finds it under half full, and what a filling finds a shared
    // link to carry depends on the order it fixes the link's classes in.
    if (l.moving.size() <= kFewFlows) return false;
  }
  return true;
}

// Sets the changed classes' rates, and what a filling would have left: the links' use, the links of one class it would
// find under half full (slack_), the classes whose rate rose (rose_).
void FlowNetwork::set_changed_rates(double now) {
  forget_changes();
  for (const ClassId c : touched_) {
    const Class& k = classes_[c];
    if (!k.alive || k.key.empty()) continue;
    if (k.next_rate > clocks_[c].rate) rose_.push_back(c);
    set_class_rate(c, k.next_rate, now);
  }
  for (const LinkId id : touched_links_) {
    const Link& l = links_[id];
    used_of(id) += l.change;  // a link whose classes all ended has left the solve: its use is read no more
    if (among_fill_arrays(l, comp_links_, id)) settle_later(l.local);  // the next filling works out its use anew
    if (l.classes.size() != 1) continue;
    const ClassId only = l.classes.front();
    const double used = one_class_use(l.capacity, classes_[only].members, clocks_[only].rate);
    if (leaves_solve(l.moving.size(), l.capacity, used)) slack_.push_back(id);
  }
}

// Readies the fill arrays with the classes to solve: those coupled to the solved links changed since the last solve
// and to the new classes (seeds_). False when there are none; else the components kept from the last gather if nothing
// that shapes them changed and the changes reach enough of them (keep_or_extend); else gathered anew, each component
// the changes reach once. Either way what changes between solves is then read (read_changes).
bool FlowNetwork::gather_component() {
  bool any = false;
  for (const LinkId link : modified_) any = any || (links_[link].solved && !links_[link].classes.empty());
  // A seed's id may have been freed and taken by a class on no solved link since: such a class is no seed (it moves at
  // its bound), and in the fill arrays its end, which changes no structure, would leave them holding a dead class.
  const auto seed = [this](ClassId c) { return classes_[c].alive && !classes_[c].key.empty(); };
  for (const ClassId c : seeds_) any = any || seed(c);
  bool patched = false;
  const bool kept = any && can_keep_component(patched) && keep_or_extend();
  if (kept && patched) ++patched_solves_;
  if (any && !kept) {
    for (std::size_t i = 0; i < comp_links_.size(); ++i) links_[comp_links_[i]].used = fill_link_loads_[i].used;
    ++stamp_;
    comp_classes_.clear();
    comp_links_.clear();
    fill_classes_.clear();
    fill_links_.clear();
    fill_link_loads_.clear();
    reread_links_.clear();
    multi_links_.clear();
    unsorted_classes_.clear();  // every class is laid out again, and listed again
    sorted_as_sole_.clear();    // and every link summed again, as having had more than one class
    to_settle_.clear();
    fill_class_links_.clear();
    fill_link_classes_.clear();
    part_first_.clear();
    part_reached_.clear();
    class_part_.clear();
    for (const LinkId link : modified_)
      if (links_[link].solved)
        for (const ClassId c : links_[link].classes) gather(c);
    for (const ClassId c : seeds_)
      if (seed(c)) gather(c);
    kept_structure_ = structure_;
    holes_ = 0;
    unused_places_ = 0;
    forget_shape_changes();
    patchable_ = keep_components_;
    forget_bounds();
    forget_sole_links();
  }
  forget_changes();
  if (any) read_changes();
  return any;
}

// Whether the components the last gather left can be solved again (see kept_structure_): as they are, or patched with
// what changed their shape since (patch()) while their holes and unused places are under half the fill arrays (past
// that, a gather anew costs less).
bool FlowNetwork::can_keep_component(bool& patched) {
  if (!keep_components_ || kept_structure_ == kNotKept) return false;
  if (kept_structure_ == structure_) return seeds_.empty();
  const std::size_t places = fill_link_classes_.size() + fill_class_links_.size();
  if (!patchable_ || 2 * holes_ > comp_classes_.size() || 2 * unused_places_ > places) return false;
  patch();
  patched = true;
  return true;
}

// The link's classes, solve or binding changed since the fill arrays were laid out: patch() lays it out again.
void FlowNetwork::reshape(LinkId id) {
  Link& l = links_[id];
  if (!patchable_ || l.reshaped) return;
  l.reshaped = true;
  reshaped_.push_back(id);
}

void FlowNetwork::forget_shape_changes() {
  for (const LinkId id : reshaped_) links_[id].reshaped = false;
  reshaped_.clear();
}

// Brings the kept components to the shape of the classes and links now, to the layout a gather anew of the same classes
// would give, without gathering anew (Prague at 16,384 ranks: a few classes begin and end at a change, of some 2,300).
// Each link reshaped is laid out again with the classes it holds now, in the order of its record (the filling's); the
// classes made since, each on the links of its key, are laid out with it, with what they couple not laid out yet, as
// parts of their own; a class laid out before whose links that bind changed has its list of links laid out again. A
// class made since on no link that binds is left out: nothing couples it (keep_or_extend() gathers it where its links
// changed in this batch). The orderings of bounds and links of one class are updated by the next filling.
void FlowNetwork::patch() {
  patch_classes_ = static_cast<std::uint32_t>(comp_classes_.size());
  patch_links_ = static_cast<std::uint32_t>(comp_links_.size());
  relink_.clear();
  for (const LinkId id : reshaped_) patch_link(id);
  std::sort(relink_.begin(), relink_.end());
  relink_.erase(std::unique(relink_.begin(), relink_.end()), relink_.end());
  for (const std::uint32_t local : relink_) relink(local);
  forget_shape_changes();
  patch_classes_ = patch_links_ = 0;
  kept_structure_ = structure_;
  if (bounds_reordered_) forget_bounds();
  bounds_reordered_ = false;
}

// Lays out again a link reshaped since the fill arrays were laid out: the classes it holds now, none where it binds no
// more or left the solve; the classes laid out before the patch that gain or lose it as a link that binds are relinked.
// One never laid out that now binds is laid out with what it couples, as a part of its own.
void FlowNetwork::patch_link(LinkId id) {
  const Link& l = links_[id];
  const bool in = l.solved && l.binds() && !l.classes.empty();
  if (l.stamp != stamp_) {
    if (!in) return;
    const std::size_t first = comp_classes_.size();
    lay_out_link(id);
    if (comp_classes_.size() > first) add_part(first);
    lay_out_from(first);
    return;
  }
  if (l.local >= patch_links_) return;  // laid out by this patch, as it is now
  if (in)
    for (const ClassId d : l.classes) gather(d);  // the classes made since, and what they couple
  FillLink& f = fill_links_[l.local];
  const bool was_in = f.classes > 0;
  const auto relink_its_classes = [&] {
    for (std::uint32_t j = f.first_class; j < f.first_class + f.classes; ++j)
      if (fill_link_classes_[j] < patch_classes_) relink_.push_back(fill_link_classes_[j]);
  };
  if (was_in && !in) relink_its_classes();  // those that lose it
  const auto classes = static_cast<std::uint32_t>(in ? l.classes.size() : 0);
  make_room(fill_link_classes_, f.first_class, f.classes, classes);
  f.classes = classes;
  for (std::uint32_t j = 0; j < classes; ++j) fill_link_classes_[f.first_class + j] = classes_[l.classes[j]].local;
  reread(l.local);
  if (in && !was_in) relink_its_classes();  // those that gain it
}

// Makes room in `places` (fill_link_classes_ or fill_class_links_) for a list of `size` where one of `had` begins at
// `first`: in its place if it fits, else at the end, its old place left unused.
void FlowNetwork::make_room(std::vector<std::uint32_t>& places, std::uint32_t& first, std::uint32_t had,
                            std::uint32_t size) {
  if (size <= had) {
    unused_places_ += had - size;
    return;
  }
  unused_places_ += had;
  first = static_cast<std::uint32_t>(places.size());
  places.resize(first + size);
}

// Lays out again the links that bind of a class laid out before the patch, and whether one caps its bound.
void FlowNetwork::relink(std::uint32_t local) {
  const ClassId c = comp_classes_[local];
  if (c == kNoClass) return;  // it ended: a hole
  const Class& k = classes_[c];
  FillClass& f = fill_classes_[local];
  std::uint32_t links = 0;
  for (const LinkId id : k.key) links += links_[id].binds() ? 1 : 0;
  make_room(fill_class_links_, f.first_link, f.links, links);
  f.links = links;
  unsorted_classes_.push_back(local);
  const bool was_capped = f.capped_by_link;
  f.capped_by_link = false;
  std::uint32_t at = f.first_link;
  for (const LinkId id : k.key) {
    const Link& l = links_[id];
    if (!l.binds()) continue;
    fill_class_links_[at++] = l.local;
    if (l.capacity <= k.bound) f.capped_by_link = true;
  }
  // Whether its bound enters the filling changed: the bounds are ordered anew (a link that caps a class binds while it
  // carries a second flow, and with one it leaves the solve, so this is seldom if ever).
  if (was_capped != f.capped_by_link) bounds_reordered_ = true;
}

// The kept components, with those the changes reach and the last gather did not, gathered onto them now. False if the
// components the changes reach (those just gathered included) hold under half the classes in the fill arrays: solving
// the others again, to the rates they have, would then cost more than gathering anew those reached (which gathers
// again those just gathered).
bool FlowNetwork::keep_or_extend() {
  ++reach_stamp_;
  std::size_t reached = 0;  // classes of the components the changes reach
  bool added = false;
  name_class_parts();
  for (const LinkId link : modified_) {
    if (!links_[link].solved) continue;
    for (const ClassId c : links_[link].classes) {
      if (classes_[c].stamp != stamp_) {
        gather(c);
        name_class_parts();
        added = true;
      }
      const std::uint32_t part = class_part_[classes_[c].local];
      if (part_reached_[part] == reach_stamp_) continue;
      part_reached_[part] = reach_stamp_;
      const std::size_t end = part + 1 < part_first_.size() ? part_first_[part + 1] : comp_classes_.size();
      reached += end - part_first_[part];
    }
  }
  if (2 * reached < comp_classes_.size()) return false;
  // fill() orders the bounds of those gathered now (bounds_of_) and reads their classes' links of one class.
  ++(added ? extended_solves_ : kept_solves_);
  return true;
}

// Names the part (part_first_) of each class laid out since the last call: a part holds the classes from its first on,
// up to the next part's, and parts are only added, each after the classes laid out before it, until a gather anew.
void FlowNetwork::name_class_parts() {
  auto part = static_cast<std::uint32_t>(class_part_.empty() ? 0 : class_part_.back());
  for (auto local = static_cast<std::uint32_t>(class_part_.size()); local < comp_classes_.size(); ++local) {
    while (part + 1 < part_first_.size() && part_first_[part + 1] <= local) ++part;
    class_part_.push_back(part);
  }
}

// What changes between solves, read into the component's fill arrays where it changed: the links flagged (reread()),
// whose classes changed their flows or whose list changed, have their classes' usage (summed in the link's order of
// classes: the same sum as summing every link) and count summed again, and are readied for the filling (capacity left,
// unfixed classes, usage), as solve() readies every other link after the filling before. Each class's flows and
// weight are kept as they change (set_fill_members), and solve() readies its state for the next filling as it reads
// the last one's rate. The links summed again are listed in summed_links_ for the filling, which always follows: fill()
// reads the list and order_sole_links() clears it.
void FlowNetwork::read_changes() {
  FillLink* const links = fill_links_.data();  // local pointers: see fill()
  FillLinkLoad* const loads = fill_link_loads_.data();
  const FillClass* const classes = fill_classes_.data();
  const std::uint32_t* const link_classes = fill_link_classes_.data();
  for (const std::uint32_t i : reread_links_) {
    FillLink& f = links[i];
    FillLinkLoad& load = loads[i];
    load.reread = false;
    summed_links_.push_back(i);
    load.weights = 0;
    load.flows = 0;
    for (std::uint32_t j = f.first_class; j < f.first_class + f.classes; ++j) {
      const FillClass& k = classes[link_classes[j]];
      load.weights += k.weight;
      load.flows += k.members;
    }
    ready_for_filling(f, load);
  }
  reread_links_.clear();
}

// Adds to the components being solved, as a part of its own (part_first_), every class coupled to `seed` through solved
// links that can bind, unless `seed` is among them already, and lays them out for the filling (fill_links_,
// fill_classes_; read_changes() then fills in the links' part of what changes between solves): each class's penalty,
// bound, flows, weight, links and capped_by_link, each link's classes. A class that crosses a link of the component no
// wider than its bound never reaches the bound before that link fills (its flows share the link), so its bound needs no
// entry in the filling (a flow's bound is its narrowest link's capacity: this is every class whose node link is
// solved).
void FlowNetwork::gather(ClassId seed) {
  if (classes_[seed].stamp == stamp_) return;
  add_part(comp_classes_.size());
  lay_out_class(seed);
  lay_out_from(comp_classes_.size() - 1);
}

// The classes laid out from fill_classes_[first] on are a part of their own (part_first_).
void FlowNetwork::add_part(std::size_t first) {
  part_first_.push_back(static_cast<std::uint32_t>(first));
  part_reached_.push_back(0);
}

void FlowNetwork::lay_out_class(ClassId c) {
  Class& k = classes_[c];
  k.stamp = stamp_;
  k.local = static_cast<std::uint32_t>(comp_classes_.size());
  comp_classes_.push_back(c);
  FillClass& f = fill_classes_.emplace_back();
  f.penalty = k.penalty;
  f.bound = k.bound;
  f.rate = clocks_[c].rate;
  set_fill_members(f, k.members);  // on no link yet: its weight alone
}

// Lays out a link that binds with its classes, adding those not laid out; one laid out before a patch under way gains
// the link (relink()).
void FlowNetwork::lay_out_link(LinkId id) {
  Link& l = links_[id];
  l.stamp = stamp_;
  l.local = static_cast<std::uint32_t>(comp_links_.size());
  comp_links_.push_back(id);
  fill_link_loads_.push_back({l.capacity, l.used, 0});  // flagged (FillLinkLoad::reread), so listed here, once
  reread_links_.push_back(l.local);
  FillLink& f = fill_links_.emplace_back();
  f.first_class = static_cast<std::uint32_t>(fill_link_classes_.size());
  f.classes = static_cast<std::uint32_t>(l.classes.size());
  for (const ClassId d : l.classes) {
    const Class& m = classes_[d];
    if (m.stamp != stamp_)
      lay_out_class(d);
    else if (m.local < patch_classes_)
      relink_.push_back(m.local);
    fill_link_classes_.push_back(m.local);
  }
}

// Lays out the links of the classes from comp_classes_[next] on, adding the links and classes they reach.
void FlowNetwork::lay_out_from(std::size_t next) {
  for (; next < comp_classes_.size(); ++next) {
    // The classes ahead in the queue: their keys, then their links, asked for early so that the misses overlap (a
    // large component's classes and links are scattered; Prague at 16,384 ranks: see the performance log).
    if (next + 4 < comp_classes_.size()) __builtin_prefetch(classes_[comp_classes_[next + 4]].key.data());
    if (next + 2 < comp_classes_.size())
      for (const LinkId link : classes_[comp_classes_[next + 2]].key) __builtin_prefetch(&links_[link]);
    const Class& k = classes_[comp_classes_[next]];
    fill_classes_[next].first_link = static_cast<std::uint32_t>(fill_class_links_.size());
    unsorted_classes_.push_back(static_cast<std::uint32_t>(next));
    for (const LinkId link : k.key) {
      const Link& l = links_[link];
      if (!l.binds()) continue;
      if (l.stamp != stamp_) lay_out_link(link);
      fill_class_links_.push_back(l.local);
      FillClass& f = fill_classes_[next];
      if (l.capacity <= k.bound) f.capped_by_link = true;
      ++f.links;
    }
  }
}


// Progressive filling over the gathered component, a class of n flows counting n times: the lowest level at which a
// link fills or a class reaches its bound fixes the classes concerned; the others go on rising. Fixing a class at
// the lowest level only raises the levels of its links, so a link's entry is left in the heap, below its level,
// and pushed again at its level when it comes up: a link is pushed once per time it reaches the top, not once per
// class fixed on it. The classes' bounds are apart from the heap, in ascending order: they seldom change between
// solves and usually share one level (one node bandwidth and one route latency across a component; Prague at 4,096
// ranks: 97 bounded classes, one level), so they cost a scan, not a heap entry each. So do the links of one class
// (sole_levels_, each class's first): fixing a class raises the levels of its other links, but a link of one class
// then has no class left to fix, so its level never moves and its entry would never be pushed again; the list and the
// heap are merged by the heap's order, and with them apart fix() leaves such links as they were (settle_own_link()).
void FlowNetwork::fill() {
  // The arrays are read through local pointers: through `this`, every store to a link or class would make the
  // compiler load each vector's pointers again (a third of the filling's instructions, Prague at 16,384 ranks).
  FillLink* const links = fill_links_.data();
  FillClass* const classes = fill_classes_.data();
  const std::uint32_t* const class_links = fill_class_links_.data();
  const std::uint32_t* const link_classes = fill_link_classes_.data();
  const LinkId* const link_ids = comp_links_.data();
  // Equal levels go in link id order, so the order the component was gathered in does not matter.
  const auto after = [link_ids](const Level& a, const Level& b) {
    return a.level > b.level || (a.level == b.level && link_ids[a.link] > link_ids[b.link]);
  };
  levels_.clear();
  const auto link_count = static_cast<std::uint32_t>(fill_links_.size());
  const auto push_level = [&](std::uint32_t i) {
    levels_.push_back({links[i].rem / links[i].usage, i, links[i].version});
  };
  // The heap's links, in index order (so the same heap whichever way they are found): those of more than one class
  // (multi_links_), and with links of one class not apart, those too. A link's classes change only where a patch or a
  // gather flags it (reread()), and read_changes() then sums it again, so those of the last filling that still have
  // more than one and those summed since are all (Prague at 16,384 ranks: 67 of a filling's 2,955 links, 144 of them
  // with no class left). Both lists index the arrays as they are: a gather anew clears them.
  sort_class_links();
  const bool sole_links_apart = sole_links_apart_;
  multi_found_.clear();
  if (sole_links_apart) {
    std::sort(summed_links_.begin(), summed_links_.end());  // order_sole_links() reads it in any order
    const std::uint32_t* last = multi_links_.data();
    const std::uint32_t* const last_end = last + multi_links_.size();
    const std::uint32_t* summed = summed_links_.data();
    const std::uint32_t* const summed_end = summed + summed_links_.size();
    while (last != last_end || summed != summed_end) {
      std::uint32_t i = 0;
      if (summed == summed_end || (last != last_end && *last < *summed)) {
        i = *last++;
      } else {
        if (last != last_end && *last == *summed) ++last;
        i = *summed++;
      }
      if (links[i].classes < 2) continue;
      multi_found_.push_back(i);
      push_level(i);
    }
  } else {
    for (std::uint32_t i = 0; i < link_count; ++i) {
      if (links[i].classes > 1) multi_found_.push_back(i);
      if (links[i].classes > 0) push_level(i);
    }
  }
  multi_links_.swap(multi_found_);
  std::make_heap(levels_.begin(), levels_.end(), after);
  order_sole_links();
  order_bounds();
  const SoleLevel* const soles = sole_levels_.data();
  const std::size_t sole_count = sole_levels_.size();
  std::size_t next_sole = 0;
  const BoundLevel* const bounds = bound_levels_.data();
  const std::size_t bound_count = bound_levels_.size();
  std::size_t next_bound = 0;
  std::size_t unfixed_classes = fill_classes_.size() - holes_;  // a hole is on no link and has no bound
  fill_fixed_.assign(fill_classes_.size(), 0);
  std::uint8_t* const fixed = fill_fixed_.data();
  // Inlined by force: called from three places, GCC kept it out of line, every capture then read through the closure
  // (the filling's instructions 14% more for Prague at 16,384 ranks).
  const auto fix = [&](std::uint32_t c, double rate) __attribute__((always_inline)) {
    FillClass& k = classes[c];
    fixed[c] = 1;
    --unfixed_classes;
    k.new_rate = rate;
    // With links of one class apart, a class's own links keep their state: no other class moves them, the list
    // holds their levels, and the solve after the filling works out what they carry from the class's rate.
    const std::uint32_t end = k.first_link + (sole_links_apart ? k.shared_links : k.links);
    for (std::uint32_t i = k.first_link; i < end; ++i) {
      FillLink& l = links[class_links[i]];
      l.rem -= k.members * rate;
      --l.unfixed;
      if (l.unfixed == 0) continue;
      l.usage -= k.weight;
      if (!(l.usage > 0)) {  // rounding: count again
        l.usage = 0;
        for (std::uint32_t j = l.first_class; j < l.first_class + l.classes; ++j) {
          const std::uint32_t d = link_classes[j];
          if (!fixed[d]) l.usage += classes[d].weight;
        }
      }
      ++l.version;  // its entry in the heap is now below its level: it is pushed again when it comes up
    }
  };
  // The rate a link fixes a class at: its level over the class's penalty, or the class's bound if the link caps it.
  const auto rate_at = [](const FillClass& k, double level) {
    return k.capped_by_link ? std::min(level / k.penalty, k.bound) : level / k.penalty;
  };
  // The heap's top, read again only as the heap changes.
  bool has_top = false;
  double top_level = 0;
  LinkId top_id = 0;
  const auto read_top = [&] {
    has_top = !levels_.empty();
    if (!has_top) return;
    top_level = levels_.front().level;
    top_id = link_ids[levels_.front().link];
  };
  read_top();
  // Whether a link of one class comes before the heap's top, in the heap's order.
  const auto before_top = [&](const SoleLevel& e) {
    return !has_top || e.level < top_level || (e.level == top_level && e.id < top_id);
  };
  // Each turn takes the next step in the filling's order: a bound at the lowest link's level first (either order gives
  // the class the same rate), then the lowest link, of one class (sole_levels_) or in the heap, ties by link id. Steps
  // of one kind come in runs: fixing a class moves neither the heap, nor the links of one class, nor the bounds, so
  // within a run the order's inputs stay as they were. Once every class is fixed, what is left could fix nothing more.
  while (unfixed_classes > 0) {
    // The links of one class that come first: before the heap's top and before the next bound (a bound at a link's
    // level goes first). Neither moves within the run, so where it ends is read once (with neither, it takes them all).
    const bool bound_left = next_bound < bound_count;
    const bool run_ends = has_top || bound_left;
    double end_level = has_top ? top_level : kNever;
    LinkId end_id = has_top ? top_id : std::numeric_limits<LinkId>::max();
    if (bound_left && bounds[next_bound].level <= end_level) {
      end_level = bounds[next_bound].level;
      end_id = 0;  // no link goes before a bound at its level
    }
    while (next_sole < sole_count) {
      const SoleLevel& sole = soles[next_sole];
      if (run_ends && !(sole.level < end_level || (sole.level == end_level && sole.id < end_id))) break;
      ++next_sole;
      // Its one class is fixed there unless fixed already; its level is the list's (nothing in the filling moves it).
      if (fixed[sole.fill_class]) continue;
      fix(sole.fill_class, rate_at(classes[sole.fill_class], sole.level));
      if (unfixed_classes == 0) return;
    }
    const bool sole_first = next_sole < sole_count && before_top(soles[next_sole]);
    const bool any_link = sole_first || has_top;
    // The bounds that come first: up to the next link's level, or all of them once no link is left.
    if (next_bound < bound_count) {
      const double link_level = sole_first ? soles[next_sole].level : top_level;
      if (!any_link || bounds[next_bound].level <= link_level) {
        do {
          const std::uint32_t c = bounds[next_bound++].local;
          if (!fixed[c]) fix(c, classes[c].bound);
        } while (unfixed_classes > 0 && next_bound < bound_count &&
                 (!any_link || bounds[next_bound].level <= link_level));
        continue;
      }
    }
    if (!any_link) break;
    // The heap's top comes first: a link of one class before it would have had its run, or a bound before it, taken.
    std::pop_heap(levels_.begin(), levels_.end(), after);
    const Level e = levels_.back();
    levels_.pop_back();
    const FillLink& l = links[e.link];
    if (l.unfixed == 0) {
      read_top();
      continue;
    }
    if (e.version != l.version) {
      levels_.push_back({std::max(l.rem, 0.0) / l.usage, e.link, l.version});
      std::push_heap(levels_.begin(), levels_.end(), after);
      read_top();
      continue;
    }
    read_top();
    // `fix` changes the classes' state only, not the link's list of classes.
    for (std::uint32_t i = l.first_class; i < l.first_class + l.classes; ++i) {
      const std::uint32_t c = link_classes[i];
      if (!fixed[c]) fix(c, rate_at(classes[c], e.level));
    }
  }
}

// Sorts the links of each class whose list was written since (laid out, relinked) or which crosses a link summed again
// whose classes passed from one to more or back: those it shares first (shared_links), then its own, for fix(). Both
// keep their order; a class's links are updated in no order that matters (each link's updates keep theirs).
void FlowNetwork::sort_class_links() {
  sorted_as_sole_.resize(fill_links_.size(), 0);
  for (const std::uint32_t i : summed_links_) {
    const FillLink& l = fill_links_[i];
    const bool sole = l.classes == 1;
    if (sole) settle_later(i);  // its class's flows, or its class, changed
    if (sole == static_cast<bool>(sorted_as_sole_[i])) continue;
    sorted_as_sole_[i] = sole;
    for (std::uint32_t j = l.first_class; j < l.first_class + l.classes; ++j)
      unsorted_classes_.push_back(fill_link_classes_[j]);
  }
  for (const std::uint32_t c : unsorted_classes_) {
    FillClass& k = fill_classes_[c];
    std::uint32_t* const first = fill_class_links_.data() + k.first_link;
    const auto own = std::stable_partition(first, first + k.links,
                                           [this](std::uint32_t link) { return fill_links_[link].classes != 1; });
    k.shared_links = static_cast<std::uint32_t>(own - first);
  }
  unsorted_classes_.clear();
}

// The fill link's use is worked out again after the next filling (settle_own_link(), if it has one class then).
void FlowNetwork::settle_later(std::uint32_t local) {
  FillLinkLoad& load = fill_link_loads_[local];
  if (load.to_settle) return;
  load.to_settle = true;
  to_settle_.push_back(local);
}

// After a filling, with links of one class apart, a link of one class (fix() left its state as it was): its class's
// flows at its rate, worked out as fix() would have subtracted them from its capacity, and whether it leaves the solve.
void FlowNetwork::settle_own_link(std::uint32_t local) {
  FillLinkLoad& l = fill_link_loads_[local];
  l.to_settle = false;
  const FillLink& f = fill_links_[local];
  if (f.classes != 1) return;  // one of more classes is settled with the filling's (multi_links_)
  const FillClass& only = fill_classes_[fill_link_classes_[f.first_class]];
  l.used = one_class_use(l.capacity, only.members, only.rate);
  if (leaves_solve(l.flows, l.capacity, l.used)) slack_.push_back(comp_links_[local]);
}

// Readies bound_levels_ for the filling: the bounds of the classes whose bound enters it, by level, then class id. The
// kept components' bounds stay as they were; those of the classes gathered onto them since are ordered apart and
// merged in (all of them after a gather anew).
void FlowNetwork::order_bounds() {
  bound_added_.clear();
  if (bounds_patched_) {  // drop the bounds of classes that ended: holes (a class that took the id is laid out after)
    std::erase_if(bound_levels_, [this](const BoundLevel& b) { return comp_classes_[b.local] != b.id; });
    bounds_patched_ = false;
  }
  for (std::uint32_t i = bounds_of_; i < fill_classes_.size(); ++i) {
    const FillClass& k = fill_classes_[i];
    if (std::isfinite(k.bound) && !k.capped_by_link) bound_added_.push_back({k.bound * k.penalty, comp_classes_[i], i});
  }
  bounds_of_ = static_cast<std::uint32_t>(fill_classes_.size());
  bound_sort_.merge_into(bound_levels_, bound_added_, [](const BoundLevel& b) { return b.level; },
                         [](const BoundLevel& b) { return b.id; });
}

// Readies sole_levels_ for the filling: for each class with links of its own (of one class), the first of them in the
// order the heap would pop them, by level, then link id. Its others come after it in that order, when the class is
// fixed already, so the filling would only pass them by (Prague at 16,384 ranks: half the list, a flow's two node
// links). A class's first link changes only where read_changes() summed a link again (a patch or a change of its
// classes' flows, which moves a level; a gather anew lists every link again): the classes of those links are read
// again, and their entries that moved leave the list and are ordered apart, then merged into the others, which stay in
// order.
void FlowNetwork::order_sole_links() {
  const auto level = [](const SoleLevel& e) { return e.level; };
  const auto id = [](const SoleLevel& e) { return e.id; };
  if (!sole_links_apart_) {
    forget_sole_links();
    summed_links_.clear();
    return;
  }
  sole_entry_class_.resize(fill_links_.size(), kNotListed);
  sole_entry_level_.resize(fill_links_.size());
  sole_entry_link_.resize(fill_classes_.size(), kNotListed);
  sole_dirty_.resize(fill_classes_.size(), 0);
  sole_dirty_classes_.clear();
  const auto read_again = [this](std::uint32_t c) {
    if (sole_dirty_[c]) return;
    sole_dirty_[c] = 1;
    sole_dirty_classes_.push_back(c);
  };
  if (!soles_whole_) {  // emptied: every class is read
    for (std::uint32_t c = 0; c < fill_classes_.size(); ++c) read_again(c);
    soles_whole_ = true;
  }
  for (const std::uint32_t i : summed_links_) {
    if (sole_entry_class_[i] != kNotListed) read_again(sole_entry_class_[i]);
    if (fill_links_[i].classes == 1) read_again(fill_link_classes_[fill_links_[i].first_class]);
  }
  summed_links_.clear();
  // Each such class's first link of its own now; where it is not its entry, the entry leaves (found by its level and
  // id), and the new one is added once every entry that leaves is found (a link may pass from one class to another).
  sole_found_.clear();
  sole_moved_.clear();
  for (const std::uint32_t c : sole_dirty_classes_) {
    sole_dirty_[c] = 0;
    const FillClass& k = fill_classes_[c];
    SoleLevel first{kNever, 0, kNotListed, c};
    for (std::uint32_t j = k.first_link; j < k.first_link + k.links; ++j) {
      const std::uint32_t link = fill_class_links_[j];
      const FillLink& l = fill_links_[link];
      if (l.classes != 1) continue;
      const SoleLevel e{l.rem / l.usage, comp_links_[link], link, c};  // capacity left over usage, as a filling begins
      if (first.link == kNotListed || e.level < first.level || (e.level == first.level && e.id < first.id)) first = e;
    }
    const std::uint32_t was = sole_entry_link_[c];
    if (was != kNotListed && was == first.link && sole_entry_level_[was] == first.level) continue;  // as it was
    if (was != kNotListed) {
      sole_found_.push_back(
          sole_sort_.place_of(sole_levels_, {sole_entry_level_[was], comp_links_[was], was, c}, level, id));
      sole_entry_class_[was] = kNotListed;
      sole_entry_link_[c] = kNotListed;
    }
    if (first.link != kNotListed) sole_moved_.push_back(first);
  }
  for (const SoleLevel& e : sole_moved_) {
    sole_entry_class_[e.link] = e.fill_class;
    sole_entry_link_[e.fill_class] = e.link;
    sole_entry_level_[e.link] = e.level;
  }
  // The list closes over the entries that leave, moving the blocks between them.
  std::sort(sole_found_.begin(), sole_found_.end());
  SoleLevel* const soles = sole_levels_.data();  // local pointer: see fill()
  const std::size_t sole_count = sole_levels_.size();
  std::size_t kept = sole_found_.empty() ? sole_count : sole_found_.front();
  for (std::size_t f = 0; f < sole_found_.size(); ++f) {
    const std::size_t next = f + 1 < sole_found_.size() ? sole_found_[f + 1] : sole_count;
    std::copy(soles + sole_found_[f] + 1, soles + next, soles + kept);
    kept += next - sole_found_[f] - 1;
  }
  sole_levels_.resize(kept);
  sole_sort_.merge_into(sole_levels_, sole_moved_, level, id);  // nothing to do where none moved
}

double FlowNetwork::load(const Link& l) const {
  double sum = 0;
  for (const FlowId g : l.moving) sum += rate(g);
  return sum;
}

// Checks the links left out of the solve that may now be over capacity: those whose flows or capacity changed, and
// those of the flows whose class's rate rose past its safe rate. Below it, each of its flows stays within its
// allowance on each such link, and the allowances on a link add up to at most its capacity; a class above it has
// its links checked and their allowances shared again. Each link over capacity joins the solve; returns whether any
// did.
bool FlowNetwork::check_overflows(double now) {
  ++check_stamp_;
  overflowing_.clear();
  const auto check = [&](LinkId link) {
    Link& l = links_[link];
    if (l.checked == check_stamp_) return;
    l.checked = check_stamp_;
    if (l.unsolved_binding && share_headroom(link) > l.capacity * (1 + kOverflowMargin)) overflowing_.push_back(link);
  };
  for (const LinkId link : to_check_) {
    links_[link].listed_for_check = false;
    check(link);
  }
  to_check_.clear();
  for (const ClassId c : rose_) {
    Class& k = classes_[c];
    const double rate = clocks_[c].rate;
    if (!k.alive || rate <= k.safe_rate) continue;
    k.safe_rate = kNever;  // worked out again from its flows' links as they are now
    for (const Member& m : k.queue) {
      const Flow& f = flows_[m.flow];
      if (m.version != f.version || f.unsolved == 0) continue;
      for (const Hop& hop : f.route) {
        if (!links_[hop.link].unsolved_binding) continue;
        check(hop.link);
        k.safe_rate = std::min(k.safe_rate, rate + links_[hop.link].headroom_part);
      }
    }
  }
  std::sort(overflowing_.begin(), overflowing_.end());
  for (const LinkId link : overflowing_)
    if (!links_[link].solved) set_solved(link, true, now);
  return !overflowing_.empty();
}

}  // namespace quorum
