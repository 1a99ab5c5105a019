#pragma once
// A flow-level network model of quorum's own: flows cross links, each link's capacity is shared max-min fairly
// among the flows crossing it, each flow weighted and bounded. It is the model SimGrid's CM02 solves (lmm: a flow
// of sharing penalty p gets level / p, at most its bound, each link at most its capacity), without SimGrid's
// activities, and solved faster for the traffic quorum makes.
//
// A flow first pays its latency, taking no share of any link (CM02's latency phase), then moves its bytes at the
// rate the max-min solution gives it, re-solved whenever a flow starts moving, ends, or a link's capacity changes.
//
// Why it is faster than SimGrid's solver for the same answer:
// - A link whose flows' bounds add up to no more than its capacity can never be full: it is no constraint and
//   couples no flows (a pool that sees few flows at a time). Only the links that can bind form the components that
//   are re-solved, and a change re-solves only the component of the links it touched (SimGrid's selective update
//   re-solves everything connected through any link).
// - The component is solved by progressive filling with a heap of link levels: O(E log E) for E flow-link pairs,
//   where SimGrid's do_solve scans every remaining link at each round.
// - Remaining bytes are brought up to date only for the flows whose rate changes (lazy, as SimGrid's lazy update).
//
// It knows nothing of SimGrid: sim/simgrid/DirectFlows.hpp drives it on SimGrid's clock.
#include <cstdint>
#include <limits>
#include <queue>
#include <span>
#include <vector>

namespace quorum {

class FlowNetwork {
 public:
  using LinkId = std::uint32_t;
  using FlowId = std::uint32_t;
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  // Events closer than this (seconds) are one: SimGrid's timing precision (surf/precision).
  static constexpr double kTimePrecision = 1e-9;

  LinkId add_link(double capacity_Bps);
  double capacity(LinkId link) const { return links_[link].capacity; }
  // The link's capacity from `now` on; flows crossing it are re-solved at the next advance().
  void set_capacity(LinkId link, double capacity_Bps, double now);

  // A flow of `bytes` over `route` from `now`: `latency_s` without a share, then max-min shares with weight
  // 1 / penalty, at most bound_Bps. The route may repeat no link. Returns its id, valid until it ends.
  FlowId start(double now, std::span<const LinkId> route, double bytes, double latency_s, double penalty,
               double bound_Bps);

  // When the next flow ends its latency or its bytes: advance() is due then (kNever if nothing is in flight), or
  // now if a change waits to be solved.
  double next_event();
  // Brings the model to `now` (not after next_event()): ends latencies and flows due by now, re-solves what
  // changed, and appends the flows that ended to `ended` (their ids are free again afterwards).
  void advance(double now, std::vector<FlowId>& ended);

  std::size_t flows_in_flight() const { return in_flight_; }
  // The flow's current rate (0 in its latency phase); for tests.
  double rate(FlowId flow) const { return flows_[flow].rate; }
  // Solves done and flow rates computed in them; for benchmarks.
  std::uint64_t solves() const { return solves_; }

 private:
  enum class Phase : std::uint8_t { Free, Latency, Moving };
  struct Flow {
    std::vector<LinkId> route;
    std::vector<std::uint32_t> slot;  // its index in each route link's `moving`
    double remaining = 0;             // bytes, as of `last`
    double last = 0;
    double rate = 0;
    double penalty = 1;
    double bound = kNever;
    std::uint32_t version = 0;  // bumped when its completion time changes: older heap entries are stale
    std::uint64_t stamp = 0;    // the solve that last gathered it
    Phase phase = Phase::Free;
    bool fixed = false;
    bool on_links = false;  // sharing its route's links (moving, with bytes and links)
  };
  struct Link {
    double capacity = 0;
    double bound_sum = 0;              // of its moving flows: the link binds only if this exceeds its capacity
    std::vector<FlowId> moving;        // flows past their latency
    std::uint64_t stamp = 0;           // the solve that last gathered it
    bool modified = false;             // its flows or capacity changed since the last solve
    // progressive filling
    double rem = 0;
    double usage = 0;
    std::uint32_t unfixed = 0;
    std::uint32_t version = 0;
    bool binds() const { return bound_sum > capacity; }
  };
  struct Event {
    double time;
    FlowId flow;
    std::uint32_t version;
    bool operator>(const Event& o) const { return time > o.time || (time == o.time && flow > o.flow); }
  };
  using EventHeap = std::priority_queue<Event, std::vector<Event>, std::greater<>>;
  struct Level {
    double level;
    std::uint32_t id;
    std::uint32_t version;
    bool is_flow;  // a flow's bound, else a link's saturation
    bool operator>(const Level& o) const { return level > o.level; }
  };

  void wants_solve(double now);
  void begin_moving(FlowId f, double now);
  void end_moving(FlowId f, double now);
  void touch(LinkId l, bool was_binding);
  void solve(double now);
  void gather(FlowId seed);
  void fill();
  void set_rate(FlowId f, double rate, double now);
  void release(FlowId f);

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_;
  std::size_t in_flight_ = 0;
  EventHeap latency_ends_;
  EventHeap completions_;
  std::vector<LinkId> modified_;
  std::vector<FlowId> seeds_;  // flows that started moving: they need a rate even if no link of theirs binds
  bool pending_ = false;       // a change waits to be solved, since pending_time_
  double pending_time_ = 0;
  // solve scratch
  std::uint64_t stamp_ = 0;
  std::vector<FlowId> comp_flows_;
  std::vector<LinkId> comp_links_;
  std::vector<double> new_rate_;  // by flow id, for comp_flows_
  std::vector<Level> levels_;  // a min-heap, kept allocated between solves
  std::uint64_t solves_ = 0;
};

}  // namespace quorum
