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
//   couples no flows.
// - Only some of the links that can be full are solved (the "solved" links): those that carry many flows, and a
//   link of few flows only once the solution would overfill it. The others are checked after each solve; one that
//   overflows joins the solved links and the solve runs again. The max-min allocation over a subset of the links
//   that fits every other link is the allocation over all of them (the allocation is unique, and the full problem's
//   feasible set is inside the relaxed one's), so the answer is the same. A link of few flows leaves the solved
//   links when a solve finds it under half full.
// - Flows that cross the same solved links, with the same penalty and bound, get the same rate: they are one class,
//   solved as one variable of that many flows. Within a class every flow moves at the class's rate, so a class keeps
//   one clock of the bytes each of its flows has moved, and a flow ends when that clock reaches its target: a change
//   of the class's rate costs one event, not one per flow (the virtual time of fair queueing).
// - A change re-solves only the classes coupled to it through solved links that can bind, by progressive filling
//   with a heap of link levels; a class's bound enters the filling only if no link of the component is narrower.
// - In the filling, a link of one class keeps its level until it fills or its class is fixed elsewhere, so it needs
//   no place in the heap of levels: those links wait in a list sorted by level and id, merged with the heap as it
//   pops, in the same order (Prague at 16,384 ranks: 2,200 of a solve's 2,250 links are node links of one class,
//   whose heap was half the filling). Only each class's first such link is listed: its others come after it, its
//   class then fixed (a flow's two node links, half the list). Nor does the filling move what such a link carries:
//   the solve after it works it out from the class's rate, where that changed (a class's links are kept with those it
//   shares first: fix() walks those alone).
// - Between two solves most changes only move flows between classes that exist, so the components gathered last are
//   kept while nothing that shapes them changes, and only what does (each class's flows, each link's capacity left and
//   usage) is read again (Prague at 4,096 ranks: two solves in three keep them). A change that reaches a component not
//   among them adds it to them, and they are solved together; components a change did not reach are solved again to the
//   rates they have (the filling of disjoint components is the filling of each, in the same order), so long as those
//   the changes reached hold at least half the classes (Prague at 16,384 ranks: the one large component and some twenty
//   small ones, which change in turn; 64% of the solves keep them or gather onto them, 4% kept the one component
//   gathered before). For the answer not to depend on the order a component was gathered in, ties are broken by id
//   throughout: between links' levels by link id, between bounds by class id, and links joining or leaving the solve in
//   id order.
// - Where classes begin and end, links join or leave the solve, or solved links start or stop binding, the kept
//   components are patched to the new shape (patch()) instead of gathered anew: the links whose classes changed are
//   laid out again, with the classes made since, an ended class left a hole, a list that grows laid out again at the
//   end of its array; the layout is the one a gather of the same classes gives, the fill order being set by ids and
//   levels alone (Prague at 16,384 ranks: a gather anew every other full solve, of some 2,300 classes for a change of a
//   few, the link of two flows that overflowed and joined the solve, or left it; now 286 in a 3-step run).
// - A change that moves no class's rate but those of its own classes is solved without a filling (solve_locally):
//   where each class whose flows changed is held by a link of its own or its bound, and each link it shares with other
//   classes has room before and after, every other class keeps the link that fixed it and the same level (a link with
//   room at the end of a progressive filling was never full on the way), so the changed classes get their rates as the
//   filling computes them, and nothing is gathered (Prague at 16,384 ranks: 46% of the solves after its first step, 65%
//   in it; at 4,096 ranks 8%, its few group pools being full).
// At 1,024 ranks on Piz Daint, Prague's thousands of flows cross a dozen group pools: a dozen classes.
//
// The solve window (set_solve_window, 0 by default) trades exactness for fewer solves where changes come in bursts:
// the changes of a window are solved together at its end. It exists for traffic whose coupled component the solve
// must visit whole at every change (Prague at 16,384 ranks: 2,300 classes, a solve every 10 us on average, 97% of
// them within 1 us of the previous one).
//
// It knows nothing of SimGrid: sim/simgrid/DirectFlows.hpp drives it on SimGrid's clock.
#include <cstdint>
#include <limits>
#include <queue>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/model/DistinctIdSort.hpp"
#include "sim/model/InlineVector.hpp"
#include "sim/model/LevelIdSort.hpp"

namespace quorum {

class FlowNetwork {
 public:
  using LinkId = std::uint32_t;
  using FlowId = std::uint32_t;
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  // Events closer than this (seconds) are one: SimGrid's timing precision (surf/precision).
  static constexpr double kTimePrecision = 1e-9;
  // A link that can bind is solved at once when it carries more flows than this; with fewer, only once it overflows.
  static constexpr std::size_t kFewFlows = 8;

  // After a change (a flow starting to move or ending, a capacity change), the shares are solved again at most
  // `window_s` later, together with every change made meanwhile; until then the flows keep their rates, and a flow
  // past its latency waits, without a share, for that solve. So every change takes effect on the shares at most
  // window_s late. 0 (the default): every change is solved at its instant, the exact max-min allocation at all times.
  void set_solve_window(double window_s);
  // Off: every solve gathers its component anew (the same rates to the bit; for tests and benchmarks).
  void keep_components(bool on) { keep_components_ = on; }
  // Off: the filling keeps links of one class in its heap with the others (the same rates to the bit; for tests).
  void sole_links_apart(bool on) {
    sole_links_apart_ = on;
    forget_sole_links();
  }
  // Off: every solve fills, even where the changes move only their own classes (the same rates to the bit; for tests
  // and benchmarks).
  void local_solves(bool on) { local_solves_ = on; }

  LinkId add_link(double capacity_Bps);
  double capacity(LinkId link) const { return links_[link].capacity; }
  // The link's capacity from `now` on; flows crossing it are re-solved at the next advance().
  void set_capacity(LinkId link, double capacity_Bps, double now);

  // Routes up to this long are kept in the flow itself, longer ones on the heap (Piz Daint's adaptive routes at 4,096
  // ranks: 2 to 9 links).
  static constexpr std::size_t kInlineHops = 9;

  // A flow of `bytes` over `route` from `now`: `latency_s` without a share, then max-min shares with weight
  // 1 / penalty, at most bound_Bps. The route may repeat no link. Returns its id, valid until it ends.
  FlowId start(double now, std::span<const LinkId> route, double bytes, double latency_s, double penalty,
               double bound_Bps);

  // When the next flow ends its latency or its bytes: advance() is due then (kNever if nothing is in flight), or
  // now if a change waits to be solved.
  double next_event();
  // Brings the model to `now` (not after next_event()): ends latencies and flows due by now, re-solves what
  // changed, and appends the flows that ended to `ended`, in the order of their ends (their ids are free again).
  void advance(double now, std::vector<FlowId>& ended);

  std::size_t flows_in_flight() const { return in_flight_; }
  // The flow's current rate (0 in its latency phase); for tests.
  double rate(FlowId flow) const;
  // Solves done (progressive fillings, a re-solve after an overflow counts again), those that kept the components the
  // last gather left, and those that kept them and gathered onto them others their changes reached; classes alive. For
  // benchmarks and tests.
  std::uint64_t solves() const { return solves_; }
  std::uint64_t kept_solves() const { return kept_solves_; }
  std::uint64_t extended_solves() const { return extended_solves_; }
  // Solves that kept the components after patching into them the classes and links that began, ended or changed
  // since (patch()); counted also as kept or extended (a patch the changes' reach then sends to a gather anew is not).
  std::uint64_t patched_solves() const { return patched_solves_; }
  // Solves that set only the changed classes' rates, without a filling (solve_locally).
  std::uint64_t local_solves_done() const { return local_solves_done_; }
  std::size_t classes() const { return class_of_key_.size(); }

 private:
  using ClassId = std::uint32_t;
  static constexpr ClassId kNoClass = std::numeric_limits<ClassId>::max();
  static constexpr std::uint32_t kNotQueued = std::numeric_limits<std::uint32_t>::max();
  static constexpr double kNoTarget = std::numeric_limits<double>::quiet_NaN();  // a class with no flow queued
  enum class Phase : std::uint8_t { Free, Latency, Moving };

  struct Hop {
    LinkId link;
    std::uint32_t slot;  // the flow's index in the link's `moving`
  };
  struct Flow {
    InlineVector<Hop, kInlineHops> route;
    double remaining = 0;  // bytes left, while in its latency phase
    double target = 0;     // on its class's clock: where it ends
    double solo_rate = 0;  // a flow on no link moves at its bound
    double penalty = 1;
    double bound = kNever;
    ClassId cls = kNoClass;
    std::uint32_t version = 0;  // bumped when it leaves a class or ends: older heap entries are stale
    std::uint32_t unsolved = 0;  // route links that can bind but are not solved: checked after a solve
    Phase phase = Phase::Free;
    bool on_links = false;  // sharing its route's links (moving, with bytes and links)
  };
  struct Member {
    double target;
    FlowId flow;
    std::uint32_t version;
    bool operator>(const Member& o) const { return target > o.target || (target == o.target && flow > o.flow); }
  };
  struct Class {
    std::uint64_t stamp = 0;   // stamp_ when it was last gathered or patched in; 0 once it ends
    std::uint32_t local = 0;   // its index in the fill arrays then (fill_classes_)
    std::uint32_t members = 0;
    double penalty = 1, bound = kNever;
    bool alive = false;
    std::vector<LinkId> key;  // the solved links its flows cross, ascending
    std::vector<Member> queue;   // min-heap of its flows' targets (and stale entries); its front is a flow of the class
    // Its rate may rise to this without overfilling any unsolved link of its flows: the least allowance its flows
    // were given on those links (share_headroom).
    double safe_rate = kNever;
    std::uint64_t changed_in = 0;      // the batch in which its flows last changed (batch_)
    std::uint32_t solved_members = 0;  // its flows at the last solve, recorded as they first change in a batch
    double next_rate = 0;              // local_solve_holds()'s, for set_changed_rates()
  };
  // A class's rate and clock, apart from its record (clocks_): a change of rate reads and writes these alone, one cache
  // line where the record and its queue took two misses (Prague at 16,384 ranks: hundreds of changes a solve).
  struct ClassClock {
    double rate = 0;      // of each flow
    double progress = 0;  // bytes each flow has moved at `rate` since the class began, as of `last`
    double last = 0;
    double next_target = kNoTarget;  // the front of its queue's target: its next end on its clock
  };
  // What a flow's start and end read of each link of its route (its count, its bound and whether it binds, the list it
  // is in) first, in the link's first cache line; what the solves read after.
  struct alignas(64) Link {
    double capacity = 0;
    double bound_sum = 0;          // of its moving flows' finite bounds: the link binds if this exceeds its capacity
    std::uint32_t unbounded = 0;   // moving flows without a bound (the link binds)
    bool solved = false;
    bool unsolved_binding = false;  // binds() && !solved, as its flows count it
    bool modified = false;          // a solved link whose classes or capacity changed since the last solve
    bool listed_for_check = false;
    bool reshaped = false;          // in reshaped_
    std::vector<FlowId> moving;    // flows past their latency
    double headroom_part = 0;  // unsolved: each flow's part of the capacity left, when last shared
    std::uint64_t stamp = 0;       // stamp_ when it was last gathered
    std::uint32_t local = 0;       // its index in the fill arrays then (fill_links_)
    std::vector<ClassId> classes;  // when solved: the classes whose key holds it
    std::uint64_t checked = 0;     // the check that last looked at it
    // Its classes' flows at their rates, as of the last solve that filled it or set its classes' rates locally (in the
    // fill arrays while it is among them: used_of()); read only while it is solved and binds, stale otherwise.
    double used = 0;
    // In the batch that last counted it (counted_in): the change of its use by the classes whose flows changed, and how
    // many of its classes those are (local_solve_holds()).
    std::uint64_t counted_in = 0;
    double change = 0;
    std::uint32_t touched_classes = 0;
    bool binds() const { return unbounded > 0 || bound_sum > capacity; }
  };
  struct Event {
    double time;
    std::uint32_t id;  // a flow (latency, solo end) or a class (its next end)
    std::uint32_t version;
    bool operator>(const Event& o) const { return time > o.time || (time == o.time && id > o.id); }
  };
  using EventHeap = std::priority_queue<Event, std::vector<Event>, std::greater<>>;
  struct Level {  // a link's saturation
    double level;
    std::uint32_t link;  // its index in fill_links_
    std::uint32_t version;
  };
  // A link of one class in the filling: its level and id, its index in fill_links_, and its class's in fill_classes_
  // (so that the filling reads no link of one class). Ordered as the heap orders Levels.
  struct SoleLevel {
    double level;
    LinkId id;
    std::uint32_t link;
    std::uint32_t fill_class;
    bool operator<(const SoleLevel& o) const { return level < o.level || (level == o.level && id < o.id); }
  };
  // A class's bound in the filling: its level (bound x penalty), the class's id and its index in the fill arrays, so
  // that the filling reads no class's record (Prague at 16,384 ranks: 1,600 bounds a filling).
  struct BoundLevel {
    double level;
    ClassId id;
    std::uint32_t local;
  };
  // What the filling reads and writes of the component's links and classes, copied side by side when gathered, with
  // each one's links or classes as local indices in one array: the filling then walks contiguous memory instead of
  // the links' and classes' own records and lists (Prague at 16,384 ranks: 2,300 classes and 2,250 links a solve).
  // With links of one class apart, a link of one class keeps the state ready_for_filling() gives it (fix() leaves it).
  struct FillLink {
    double rem = 0;    // capacity left
    double usage = 0;  // its unfixed classes' flows, each weighted 1 / penalty
    std::uint32_t unfixed = 0;
    std::uint32_t version = 0;      // bumped when its level changes: older heap entries are stale
    std::uint32_t first_class = 0;  // its classes: fill_link_classes_[first_class, first_class + classes)
    std::uint32_t classes = 0;
  };
  // What a solve reads and writes of a link beside the filling, kept beside the fill arrays so that it reads no link's
  // record (Prague at 16,384 ranks: 2,250 a solve).
  struct FillLinkLoad {
    double capacity = 0;
    double used = 0;           // Link::used while the link is among the fill arrays (used_of())
    std::uint32_t flows = 0;   // its classes' flows
    // Its classes' weights, summed in the order of its list as read_changes() last summed them, and whether to sum them
    // again: a class of its list changed its flows, or the list changed, since (Prague at 16,384 ranks: a few links of
    // a solve's 2,250). Flagged exactly while listed in reread_links_ (a link laid out is, once: lay_out_link()).
    double weights = 0;
    bool reread = true;
    // Of one class, with links of one class apart: its use is worked out again after the next filling (its flows or
    // classes changed, or a local solve added to it), else only where its class's rate changes (settle_own_link()).
    bool to_settle = false;
  };
  // A link as a filling begins: its whole capacity left, every class unfixed, their weights its usage.
  static void ready_for_filling(FillLink& f, const FillLinkLoad& load) {
    f.rem = load.capacity;
    f.unfixed = f.classes;
    f.usage = load.weights;
  }
  struct FillClass {
    double penalty = 1, bound = kNever;
    double weight = 0;  // members / penalty: its flows' part of each link's usage, divided as its flows change
    double new_rate = 0;
    // The class's rate and flows, kept equal to its clock's and record's while it is among the fill arrays
    // (fill_class_of()), so that a solve reads only the clocks of the classes whose rate changes.
    double rate = 0;
    std::uint32_t members = 0;
    std::uint32_t first_link = 0;  // its links that can bind: fill_class_links_[first_link, first_link + links)
    std::uint32_t links = 0;
    // Its first links, those it shares with other classes (then its links of one class: sort_class_links()).
    std::uint32_t shared_links = 0;
    bool capped_by_link = false;  // its bound needs no entry in this fill (fill())
  };
  struct KeyHash {
    std::size_t operator()(const std::vector<std::uint64_t>& key) const;
  };

  void wants_solve(double now);
  void past_latency(FlowId f, double now);
  void begin_moving(FlowId f, double now);
  void end_moving(FlowId f, double now);
  void refresh(LinkId l, double now);
  void count_unsolved(LinkId l);
  void set_solved(LinkId l, bool solved, double now);
  void mark_modified(LinkId l);
  void list_for_check(LinkId l, double now);
  void end_key(double penalty, double bound);
  void join(FlowId f, double remaining, double now);
  double leave(FlowId f, double now);
  void reclassify(FlowId f, double now);
  void sync(ClassClock& clock, double now);
  void note_next_target(ClassId c);
  void drop_left_flows(ClassId c);
  void schedule(ClassId c);
  void place_end(std::uint32_t slot);
  void drop_end(ClassId c);
  double share_headroom(LinkId l);
  void set_class_rate(ClassId c, double rate, double now);
  void set_clock_rate(ClassId c, double rate, double now);
  void solve(double now);
  void touch(ClassId c);
  void count_change(LinkId id, double change, bool touched_class);
  template <class Record, class Id>
  bool among_fill_arrays(const Record& r, const std::vector<Id>& comp, Id id) const;
  double& used_of(LinkId id);
  void set_fill_members(FillClass& f, std::uint32_t members);
  void reread(std::uint32_t local);
  void name_class_parts();
  FillClass* fill_class_of(ClassId c);
  double own_rate(const Class& k) const;
  bool solve_locally(double now);
  bool local_solve_holds();
  void set_changed_rates(double now);
  void forget_changes();
  void end_batch();
  bool gather_component();
  bool can_keep_component(bool& patched);
  bool keep_or_extend();
  void reshape(LinkId l);
  void forget_shape_changes();
  void patch();
  void patch_link(LinkId l);
  void relink(std::uint32_t local);
  void make_room(std::vector<std::uint32_t>& places, std::uint32_t& first, std::uint32_t had, std::uint32_t size);
  void add_part(std::size_t first);
  void read_changes();
  void gather(ClassId seed);
  void lay_out_class(ClassId c);
  void lay_out_link(LinkId l);
  void lay_out_from(std::size_t next);
  void fill();
  void order_bounds();
  void sort_class_links();
  void settle_later(std::uint32_t local);
  void settle_own_link(std::uint32_t local);
  void order_sole_links();
  void forget_sole_links() {
    for (const SoleLevel& e : sole_levels_) {
      sole_entry_class_[e.link] = kNotListed;
      sole_entry_link_[e.fill_class] = kNotListed;
    }
    sole_levels_.clear();
    soles_whole_ = false;
  }
  void forget_bounds() {
    bound_levels_.clear();
    bounds_of_ = 0;
    bounds_patched_ = false;
  }
  bool check_overflows(double now);
  double load(const Link& l) const;
  void release(FlowId f);

  std::vector<Link> links_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_flows_;
  std::vector<Class> classes_;
  std::vector<ClassClock> clocks_;  // by class
  std::vector<ClassId> free_classes_;
  std::unordered_map<std::vector<std::uint64_t>, ClassId, KeyHash> class_of_key_;
  std::vector<std::uint64_t> key_scratch_;
  std::size_t in_flight_ = 0;
  EventHeap latency_ends_;
  EventHeap solo_ends_;   // flows on no link
  // A class's next end in ends_: the sift compares these alone and writes each class's place in end_slots_, reading no
  // class's record (Prague at 16,384 ranks: a class's record is 152 bytes, hundreds of ends rescheduled a solve).
  struct End {
    double time;  // when its nearest target is reached at its rate
    ClassId cls;
    bool operator<(const End& o) const { return time < o.time || (time == o.time && cls < o.cls); }
  };
  std::vector<End> ends_;  // classes with an end ahead, a min-heap on their next end kept in place (one entry each)
  std::vector<std::uint32_t> end_slots_;  // by class: its place in ends_, or kNotQueued
  std::vector<LinkId> modified_;
  std::vector<ClassId> seeds_;        // classes whose rate must be solved though no solved link of theirs changed
  std::vector<LinkId> to_check_;      // unsolved links that can bind whose flows or capacity changed
  std::vector<ClassId> rose_;         // classes whose rate rose in the last solve: their links are checked
  DistinctIdSort rose_sort_;
  std::vector<LinkId> slack_;         // links of few flows a solve found under half full: they leave the solve
  bool pending_ = false;              // a change waits to be solved, since pending_time_
  double pending_time_ = 0;
  double solve_window_ = 0;
  std::vector<FlowId> starting_;      // past their latency, waiting for the window's solve to share their links
  // solve scratch
  std::uint64_t stamp_ = 0;
  std::uint64_t check_stamp_ = 0;
  std::vector<ClassId> comp_classes_;
  std::vector<LinkId> comp_links_;
  std::vector<LinkId> overflowing_;
  std::vector<FillLink> fill_links_;      // comp_links_'s, in its order
  std::vector<FillLinkLoad> fill_link_loads_;  // the same links'
  std::vector<FillClass> fill_classes_;  // comp_classes_'s, in its order
  // Whether each of them is fixed in the filling under way, apart from their records: the filling passes by many a class
  // fixed already, and a byte each keeps those checks within a few cache lines (Prague at 16,384 ranks: some 3,000
  // classes of 64 bytes; perf put a quarter of the filling's samples on reading a record's flag).
  std::vector<std::uint8_t> fill_fixed_;
  std::vector<std::uint32_t> fill_link_classes_;
  std::vector<std::uint32_t> fill_class_links_;
  // The components the last gather left in the fill arrays stay valid for later solves while structure_ is unchanged:
  // it changes when a class with solved links begins or ends, a link joins or leaves the solve, a solved link starts
  // or stops being able to bind, or a capacity changes (patch() then brings them to the new shape). Together they are
  // whole (every class coupled to one of them is among them), and each gather adds its classes contiguously, as a part:
  // part_first_ holds where each begins in fill_classes_. A part is one component as gathered; a patch may couple it to
  // others or split it, so keep_or_extend()'s count of the classes a change reaches is then approximate (which only
  // decides whether to gather anew).
  static constexpr std::uint64_t kNotKept = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t structure_ = 0;
  std::uint64_t kept_structure_ = kNotKept;
  bool keep_components_ = true;
  std::vector<std::uint32_t> part_first_;
  std::vector<std::uint64_t> part_reached_;  // the reach (reach_stamp_) that last counted it
  std::vector<std::uint32_t> class_part_;    // by fill class: its part, for the first ones (name_class_parts())
  std::uint64_t reach_stamp_ = 0;
  // What changed the components' shape since they were laid out (or last patched), for patch(): the links whose
  // classes, solve or binding changed (a class begins or ends on each link of its key; a link joins or leaves the solve
  // as its flows change class). A class that ends leaves a hole in the fill arrays at once (leave()); a list that grows
  // is laid out again at the end of its array, its old place left unused. Past a capacity change, or with too many
  // holes and unused places, they are gathered anew instead.
  std::vector<LinkId> reshaped_;
  bool patchable_ = false;
  std::uint32_t holes_ = 0;       // ended classes in fill_classes_
  std::size_t unused_places_ = 0;  // in fill_link_classes_ and fill_class_links_
  std::uint32_t patch_classes_ = 0, patch_links_ = 0;  // laid out before the patch under way (0: none)
  std::vector<std::uint32_t> relink_;  // classes laid out before it whose links that bind changed (relink())
  std::uint64_t patched_solves_ = 0;
  std::vector<Level> levels_;  // a min-heap, kept allocated between solves
  bool sole_links_apart_ = true;
  // Each class's first link of one class, in the order the heap would pop them (fill(), order_sole_links()).
  std::vector<SoleLevel> sole_levels_;
  bool soles_whole_ = false;  // it holds every class's entry (forget_sole_links() empties it: all are read again)
  // Kept with the list: by fill link, the class whose entry it is (or kNotListed) and the entry's level; by fill
  // class, the link of its entry (or kNotListed).
  static constexpr std::uint32_t kNotListed = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> sole_entry_class_;
  std::vector<double> sole_entry_level_;
  std::vector<std::uint32_t> sole_entry_link_;
  // order_sole_links()'s scratch.
  std::vector<SoleLevel> sole_moved_;
  std::vector<std::size_t> sole_found_;
  std::vector<std::uint8_t> sole_dirty_;
  std::vector<std::uint32_t> sole_dirty_classes_;
  // The fill links read_changes() summed again, each once, since the last filling, which reads them (fill() sorts them)
  // and clears them (order_sole_links(); every read_changes() is followed by a filling).
  std::vector<std::uint32_t> summed_links_;
  std::vector<std::uint32_t> reread_links_;  // the links flagged for read_changes() (FillLinkLoad::reread)
  // The links of more than one class at the last filling, in index order (fill()), and fill()'s scratch.
  std::vector<std::uint32_t> multi_links_;
  std::vector<std::uint32_t> multi_found_;
  // Each class's links are sorted shared first (sort_class_links()) once laid out or relinked (these, by fill class),
  // and again where a link's classes pass from one to more or back (by fill link: whether it had one when last sorted).
  std::vector<std::uint32_t> unsorted_classes_;
  std::vector<std::uint8_t> sorted_as_sole_;
  std::vector<std::uint32_t> to_settle_;  // the fill links flagged FillLinkLoad::to_settle
  LevelIdSort<SoleLevel> sole_sort_;
  LevelIdSort<BoundLevel> bound_sort_;
  std::vector<BoundLevel> bound_levels_;  // the bounded classes' levels, ascending
  std::uint32_t bounds_of_ = 0;  // bound_levels_ holds the bounds of fill_classes_[0, bounds_of_) that enter a filling
  std::vector<BoundLevel> bound_added_;  // order_bounds()'s scratch
  bool bounds_reordered_ = false;  // a patch changed whether a class's bound enters the filling
  bool bounds_patched_ = false;  // a class with a bound in the filling ended since bound_levels_ was ordered
  std::vector<std::pair<double, FlowId>> ending_;
  std::uint64_t solves_ = 0;
  std::uint64_t kept_solves_ = 0;
  std::uint64_t extended_solves_ = 0;
  // The changes since the last solve (a batch, batch_): the classes whose flows changed (touched), the links whose use
  // they change, and whether only flows changed and links joined or left the solve (no solved link started or stopped
  // binding, no capacity changed): solve_locally() then may set the touched classes' rates alone.
  bool local_solves_ = true;
  std::uint64_t batch_ = 1;
  std::vector<ClassId> touched_;
  std::vector<LinkId> touched_links_;
  bool only_flows_changed_ = true;
  std::uint64_t local_solves_done_ = 0;
};

}  // namespace quorum
