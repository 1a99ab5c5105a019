#include "algorithms/collectives/PartialAllreduce.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>

#include "algorithms/NamedEnum.hpp"
#include "algorithms/collectives/ActivationTree.hpp"
#include "algorithms/comm/RequestList.hpp"
#include "kernels/optim/VectorOps.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {

constexpr double kControlBytes = 16;  // version and root: two 64-bit integers

}  // namespace

struct PartialAllreduce::Shared {
  Shared(Comm& comm, PartialAllreduceConfig c)
      : config(std::move(c)),
        rank(comm.rank()),
        size(comm.size()),
        elements(config.initial_buffer.size()),
        tree(comm.size()),
        mutex(comm.make_mutex()) {
    if (config.buffer == SendBufferPolicy::Replace) {
      buffer = config.initial_buffer;
      deposits = {-1};  // the initial model, "deposited" before step 0
    } else {
      buffer.assign(elements, 0.0f);
    }
  }

  std::int64_t step_of(std::int64_t version) const {
    if (version < 0) return -1;
    return config.step_of_version ? config.step_of_version(version) : version;
  }
  Tag activation_tag() const { return tags::make(config.activation_channel, config.instance); }
  Tag schedule_tag(std::int64_t v, int phase) const {
    return tags::make(config.schedule_channel,
                      (config.instance * 8 + static_cast<int>(v & 7)) * kPartialPhasesPerVersion + phase);
  }
  Tag request_tag() const { return tags::make(Channel::Control, config.control_sub + 2 * config.instance); }
  Tag done_tag() const { return tags::make(Channel::Control, config.control_sub + 2 * config.instance + 1); }

  bool synchronous(std::int64_t version) const {
    return config.synchronous_every > 0 && (version + 1) % config.synchronous_every == 0;
  }
  // Whether this rank's call may start `version` (a synchronous version is started by every rank's own call).
  bool may_activate(std::int64_t version) const {
    return config.activation == ActivationPolicy::Solo || synchronous(version) ||
           majority_initiator(config.seed, version, size) == rank;
  }

  // Main agent, under the mutex: this call's data for version t enters the send buffer.
  void deposit(std::vector<float> data, std::int64_t t) {
    if (config.buffer == SendBufferPolicy::Replace || deposits.empty()) {
      buffer = std::move(data);
      deposits = {t};
    } else {
      vec::add(buffer, data);
      deposits.push_back(t);
    }
  }

  PartialAllreduceConfig config;
  const int rank, size;
  const std::size_t elements;
  const ActivationTree tree;
  std::unique_ptr<Mutex> mutex;

  // Guarded by mutex.
  std::vector<float> buffer;
  std::vector<std::int64_t> deposits;  // the versions the buffer's data were meant for (-1: the initial buffer)
  std::int64_t calls = 0;              // calls made by the main agent (= the next call's version)
  std::int64_t started = 0;            // versions whose send buffer the agent has taken
  std::int64_t completed = 0;          // versions completed on this rank
  std::int64_t returned = -1;          // newest version whose result a call returned
  std::int64_t waiting_for = -1;       // version the main agent is blocked on, -1 if none
  struct Completed {
    std::vector<float> sum;
    std::vector<int> group, fresh;
    std::vector<std::int64_t> deposits;  // the versions this rank's contribution was meant for
  };
  // OwnVersion: the completed versions no call has returned yet (at most config.kept_results); Newest: the newest
  // completed version only (the single receive buffer).
  std::map<std::int64_t, Completed> kept;
  PartialAllreduceStats stats;
};

namespace {

// The progress agent's side of the protocol: one iteration per version.
class AgentLoop {
 public:
  AgentLoop(Comm& comm, PartialAllreduce::Shared& shared)
      : c_(comm),
        s_(shared),
        reduction_(comm, shared.config.schedule, shared.config.logical_bytes,
                   [&shared](std::int64_t v, int phase) { return shared.schedule_tag(v, phase); }) {}

  void run() {
    parents_ = s_.tree.possible_parents(s_.rank);
    for (int p : parents_) listeners_.push_back(c_.irecv(p, s_.activation_tag()));
    listeners_.push_back(c_.irecv(s_.rank, s_.request_tag()));  // last: the main agent's requests
    for (std::int64_t v = 0; v < s_.config.versions; ++v) execute(v);
    for (const auto& l : listeners_.all()) c_.cancel(l);
  }

 private:
  struct Snapshot {
    std::vector<float> data;
    std::vector<std::int64_t> deposits;
    bool fresh = false;
  };

  void execute(std::int64_t v) {
    bool internal = false;
    const int root = await_activation(v, internal);
    const double start = c_.now();
    if (StepObserver* obs = s_.config.observer; obs && obs->tracing()) {  // timeline: when and by whom v started
      std::string name = "v";  // appended piece by piece: "literal" + std::string trips GCC 12's false -Wrestrict
      name += std::to_string(v);
      if (internal) {
        name += " by this rank";
      } else {
        name += " from root ";
        name += std::to_string(root);
      }
      obs->span({s_.rank, 1, "activation", name, start, start});
    }
    forward(v, root);
    Snapshot snap = take_send_buffer(v, internal);
    record_contribution(v, snap);

    const std::int64_t step = s_.step_of(v);
    std::vector<int> members;  // the reduction's members; left empty for all ranks when nothing lists them
    PartialSum p{std::move(snap.data), FreshRanks(s_.size, lists_ranks())};
    if (snap.fresh) p.fresh.insert(s_.rank);
    if (s_.config.grouping) {
      members = s_.config.grouping->group_of(s_.rank, step).members;
      reduction_.over_dimensions(v, p, s_.config.grouping->dimensions(step));
    } else {
      if (lists_ranks()) members = Group::world(s_.size).members;
      reduction_.over_world(v, p);
    }
    publish(v, std::move(p), std::move(members), std::move(snap.deposits));

    StepObserver* obs = s_.config.observer;
    if (obs && obs->tracing())
      obs->span({s_.rank, 1, "partial_allreduce", "version " + std::to_string(v), start, c_.now()});
  }

  // Blocks until version v is activated here, by this rank's main agent or by a neighbour; returns the root of the
  // tree the activation travels on. The listeners stay posted across versions: an activation that arrives after
  // its version started here (a simultaneous activator's) is consumed and dropped at the next wait instead of
  // piling up unmatched, which would make every later message to that rank slower to match.
  int await_activation(std::int64_t v, bool& internal) {
    if (const auto it = early_.find(v); it != early_.end()) {
      const int root = it->second;
      early_.erase(it);
      return root;
    }
    for (;;) {
      const std::size_t i = c_.wait_any(listeners_);
      Message m = c_.take(listeners_[i]);
      const bool is_request = i == parents_.size();
      listeners_.set(i, is_request ? c_.irecv(s_.rank, s_.request_tag()) : c_.irecv(parents_[i], s_.activation_tag()));
      const int root = consider(v, m, is_request, internal);
      if (root >= 0) return root;
    }
  }

  // One activation message or main-agent request while waiting for version v: returns the root if it activates v.
  int consider(std::int64_t v, const Message& m, bool is_request, bool& internal) {
    const std::int64_t u = m.payload.ints.at(0);
    if (is_request) {
      if (u > v)
        throw std::logic_error("partial allreduce: a request for version " + std::to_string(u) +
                               " while this rank's agent waits for version " + std::to_string(v) +
                               ": a message left by an earlier collective with the same instance on this Comm? "
                               "(PartialAllreduceConfig::instance)");
      if (u < v) return -1;  // the main agent asked for a version that had already started
      internal = true;
      return s_.rank;
    }
    const int root = static_cast<int>(m.payload.ints.at(1));
    // A synchronous version is started by every rank's own call; nobody activates it.
    if (u == v && !s_.synchronous(v)) return root;
    if (u > v) early_[u] = root;  // a neighbour is already one version ahead: keep it for then
    else note_duplicate();        // that version already started here
    return -1;
  }

  void note_duplicate() {
    std::lock_guard lock(*s_.mutex);
    ++s_.stats.duplicate_activations;
  }

  void forward(std::int64_t v, int root) {
    if (s_.synchronous(v)) return;
    const std::vector<int> children = s_.tree.children(s_.rank, root);
    for (int child : children) c_.post(child, s_.activation_tag(), Payload{{}, {v, root}}, kControlBytes);
    std::lock_guard lock(*s_.mutex);
    s_.stats.activations_sent += static_cast<std::int64_t>(children.size());
  }

  Snapshot take_send_buffer(std::int64_t v, bool internal) {
    std::lock_guard lock(*s_.mutex);
    s_.started = v + 1;
    if (internal) ++s_.stats.internal_activations;
    Snapshot snap;
    if (s_.config.buffer == SendBufferPolicy::Accumulate) {
      snap.data = std::move(s_.buffer);
      s_.buffer.assign(s_.elements, 0.0f);
      snap.deposits = std::move(s_.deposits);
      s_.deposits.clear();
    } else {
      snap.data = s_.buffer;
      snap.deposits = s_.deposits;
    }
    snap.fresh = std::find(snap.deposits.begin(), snap.deposits.end(), v) != snap.deposits.end();
    if (snap.fresh) ++s_.stats.fresh_contributions;
    return snap;
  }

  void record_contribution(std::int64_t v, const Snapshot& snap) {
    StepObserver* obs = s_.config.observer;
    if (obs == nullptr) return;
    const std::int64_t step = s_.step_of(v);
    obs->sample(s_.rank, "fresh_contribution", snap.fresh ? 1.0 : 0.0);
    std::int64_t oldest = -1;
    for (std::int64_t d : snap.deposits) {
      const std::int64_t staleness = step - s_.step_of(d);
      obs->histogram(s_.rank, "staleness", staleness);
      oldest = std::max(oldest, staleness);
    }
    if (!s_.config.contributions_table.empty()) {
      const int group = s_.config.grouping ? s_.config.grouping->group_of(s_.rank, step).members.front() : 0;
      obs->table_row(s_.config.contributions_table,
                     {{"version", static_cast<double>(v)},
                      {"step", static_cast<double>(step)},
                      {"group", static_cast<double>(group)},
                      {"rank", static_cast<double>(s_.rank)},
                      {"fresh", snap.fresh ? 1.0 : 0.0},
                      {"staleness", static_cast<double>(oldest)}});
    }
  }

  bool lists_ranks() const { return s_.config.result_ranks || s_.config.on_version; }

  // `members` is empty for a reduction over all ranks whose ranks nobody lists.
  void publish(std::int64_t v, PartialSum p, std::vector<int> members, std::vector<std::int64_t> deposits) {
    // The reduction merged the fresh ranks of the members only (all ranks when members is empty): the set's size.
    const auto active = p.fresh.count();
    const int leader = members.empty() ? 0 : members.front();
    std::vector<int> fresh;
    if (lists_ranks()) {
      for (int r : members)
        if (p.fresh.contains(r)) fresh.push_back(r);
    } else {
      members.clear();
    }
    PartialResult full;
    if (s_.config.on_version) {
      full.version = v;
      full.step = s_.step_of(v);
      full.sum = p.data;
      full.group = members;
      full.fresh = fresh;
      full.own_data_included = std::find(deposits.begin(), deposits.end(), v) != deposits.end();
    }
    bool notify = false;
    {
      std::lock_guard lock(*s_.mutex);
      if (s_.config.late_result == LateResultPolicy::Newest) s_.kept.clear();  // overwrites the receive buffer
      s_.kept[v] = {std::move(p.data), std::move(members), std::move(fresh), std::move(deposits)};
      if (static_cast<std::int64_t>(s_.kept.size()) > s_.config.kept_results) {
        s_.kept.erase(s_.kept.begin());
        ++s_.stats.results_dropped;
      }
      s_.completed = v + 1;
      ++s_.stats.executed;
      s_.stats.executed_versions.push_back(v);
      notify = s_.waiting_for >= 0 && s_.waiting_for <= v;
      if (notify) s_.waiting_for = -1;
    }
    if (s_.config.on_version) s_.config.on_version(full);
    if (notify) c_.post(s_.rank, s_.done_tag(), Payload{{}, {v}}, kControlBytes);
    if (s_.config.observer && s_.rank == leader)
      s_.config.observer->sample(s_.rank, s_.config.grouping ? "group_active_processes" : "active_processes",
                                 static_cast<double>(active));
  }

  Comm& c_;
  PartialAllreduce::Shared& s_;
  PartialReduction reduction_;
  std::vector<int> parents_;            // every neighbour that may forward an activation to this rank
  // One receive per parent, then one for the main agent's requests; one is replaced per wait, which a RequestList
  // lets the backend take up alone.
  RequestList listeners_;
  std::map<std::int64_t, int> early_;   // activations of later versions, kept until their turn
};

}  // namespace

PartialAllreduce::PartialAllreduce(Comm& comm, PartialAllreduceConfig config)
    : comm_(comm), shared_(std::make_shared<Shared>(comm, std::move(config))) {
  if (shared_->config.versions < 0) throw std::invalid_argument("partial allreduce: versions must be >= 0");
  if (shared_->config.kept_results < 1)
    throw std::invalid_argument("partial allreduce: kept_results must be >= 1, got " +
                                std::to_string(shared_->config.kept_results));
  if (shared_->config.grouping && shared_->config.grouping->world_size() != comm.size())
    throw std::invalid_argument("partial allreduce: the grouping is for " +
                                std::to_string(shared_->config.grouping->world_size()) + " ranks, the world has " +
                                std::to_string(comm.size()));
  if (shared_->config.versions == 0) return;
  auto shared = shared_;  // the agent keeps the state alive even if this object goes first
  agent_ = comm.spawn("partial-allreduce", [shared](Comm& agent_comm) { AgentLoop(agent_comm, *shared).run(); });
}

// Without finish() the agent stays blocked and the backend reports it; joining here could hang during unwinding.
PartialAllreduce::~PartialAllreduce() = default;

PartialResult PartialAllreduce::call(std::vector<float> data) { return complete(submit(std::move(data))); }

PartialAllreduce::PendingCall PartialAllreduce::submit(std::vector<float> data) {
  Shared& s = *shared_;
  if (data.size() != s.elements)
    throw std::invalid_argument("partial allreduce: call with " + std::to_string(data.size()) +
                                " values, the collective was set up for " + std::to_string(s.elements));
  std::int64_t t = 0;
  bool activate = false, wait = false;
  {
    std::lock_guard lock(*s.mutex);
    t = s.calls;
    if (t >= s.config.versions)
      throw std::logic_error("partial allreduce: call " + std::to_string(t + 1) + " but only " +
                             std::to_string(s.config.versions) + " versions were set up");
    ++s.calls;
    s.deposit(std::move(data), t);
    // A version that already started here has taken the buffer: this rank joins a later one, and activates nothing.
    activate = s.started <= t && s.may_activate(t);
    wait = s.completed <= t;
    if (wait) s.waiting_for = t;
  }
  if (activate) comm_.post(s.rank, s.request_tag(), Payload{{}, {t}}, kControlBytes);
  return PendingCall{t, wait};
}

PartialResult PartialAllreduce::complete(const PendingCall& call) {
  Shared& s = *shared_;
  const std::int64_t t = call.version;
  const bool wait = call.wait;
  if (wait) comm_.recv(s.rank, s.done_tag());

  std::lock_guard lock(*s.mutex);
  PartialResult r;
  r.late = !wait;
  if (r.late) ++s.stats.late_calls;
  const bool own_version = s.config.late_result == LateResultPolicy::OwnVersion;
  const auto it = own_version ? s.kept.find(t) : (s.kept.empty() ? s.kept.end() : std::prev(s.kept.end()));
  if (it == s.kept.end()) return r;  // OwnVersion: dropped beyond kept_results before this call
  Shared::Completed& c = it->second;
  r.version = it->first;
  r.step = s.step_of(r.version);
  r.own_data_included = std::find(c.deposits.begin(), c.deposits.end(), t) != c.deposits.end();
  r.reused = r.version <= s.returned;
  s.returned = std::max(s.returned, r.version);
  if (own_version) {  // consumed: hand the vectors over instead of copying them
    r.sum = std::move(c.sum);
    r.group = std::move(c.group);
    r.fresh = std::move(c.fresh);
    s.kept.erase(s.kept.begin(), std::next(it));
  } else {  // the receive buffer stays for the next call to read
    r.sum = c.sum;
    r.group = c.group;
    r.fresh = c.fresh;
  }
  return r;
}

void PartialAllreduce::finish() {
  if (finished_) return;
  {
    std::lock_guard lock(*shared_->mutex);
    if (shared_->calls != shared_->config.versions)
      throw std::logic_error("partial allreduce: finish() after " + std::to_string(shared_->calls) + " of " +
                             std::to_string(shared_->config.versions) + " calls");
  }
  if (agent_) agent_->join();
  finished_ = true;
}

PartialAllreduceStats PartialAllreduce::stats() const {
  std::lock_guard lock(*shared_->mutex);
  return shared_->stats;
}

std::vector<float> PartialAllreduce::send_buffer() const {
  std::lock_guard lock(*shared_->mutex);
  return shared_->buffer;
}

const char* to_string(LateResultPolicy p) { return p == LateResultPolicy::Newest ? "newest" : "own_version"; }

bool parse_late_result(const std::string& text, LateResultPolicy& out) {
  return parse_named(text, {LateResultPolicy::OwnVersion, LateResultPolicy::Newest}, out);
}

int PartialAllreduce::majority_initiator(std::uint64_t seed, std::int64_t version, int world_size) {
  Rng rng(seed, Stream::Majority, static_cast<std::uint64_t>(version));
  return static_cast<int>(rng.below(static_cast<std::uint64_t>(world_size)));
}

PartialAllreduceConfig solo_allreduce_config(std::int64_t versions, double logical_bytes, std::size_t elements) {
  PartialAllreduceConfig c;
  c.activation = ActivationPolicy::Solo;
  c.buffer = SendBufferPolicy::Accumulate;
  c.versions = versions;
  c.logical_bytes = logical_bytes;
  c.initial_buffer.assign(elements, 0.0f);
  return c;
}

PartialAllreduceConfig majority_allreduce_config(std::int64_t versions, double logical_bytes, std::size_t elements,
                                                 std::uint64_t seed) {
  PartialAllreduceConfig c = solo_allreduce_config(versions, logical_bytes, elements);
  c.activation = ActivationPolicy::Majority;
  c.seed = seed;
  return c;
}

PartialAllreduceConfig group_allreduce_config(std::int64_t versions, double logical_bytes,
                                              std::vector<float> initial_model, ButterflyGrouping grouping) {
  PartialAllreduceConfig c;
  c.activation = ActivationPolicy::Solo;
  c.buffer = SendBufferPolicy::Replace;
  c.versions = versions;
  c.logical_bytes = logical_bytes;
  c.initial_buffer = std::move(initial_model);
  c.grouping = std::move(grouping);
  c.schedule_channel = Channel::GroupAllreduce;
  return c;
}

}  // namespace quorum
