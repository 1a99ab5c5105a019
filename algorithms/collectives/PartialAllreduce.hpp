#pragma once
// Partial and wait-avoiding allreduce, written once on point-to-point Comm: solo and majority allreduce (eager-SGD
// paper 002, sec. 4) and the wait-avoiding group allreduce (WAGMA paper 000, sec. 3).
//
// A persistent collective that executes `versions` times, version 0, 1, 2, ... in order, each exactly once on every
// rank. Every rank has a send buffer and a progress agent (Comm::spawn) that makes the protocol progress while the
// rank computes:
//
//  1. Activation. A version starts on a rank when the rank is activated, internally or externally. Internally: the
//     rank's own call for that version arrives while the version has not started there, and the rank may activate
//     it (solo: any rank; majority: only the version's initiator, drawn from a seeded stream every rank shares, so
//     all agree without talking). Externally: an activation message arrives from a neighbour. The activated rank
//     forwards the activation along the activator's binomial tree in the butterfly (ActivationTree), then starts
//     its schedule. A rank whose call arrives after its version started learns so and sends nothing.
//     Simultaneous activators are harmless: a rank starts a version once, on the first activation it sees, and
//     forwards only along that activation's tree; later activations of the same version are dropped.
//  2. Contribution. The schedule takes the send buffer as it is at that moment (eager-SGD's stale-contribution
//     semantics): a rank still computing contributes what its buffer holds, not its next result.
//  3. Reduction (PartialReduction). A butterfly schedule (recursive doubling as in fflib2, or Rabenseifner's reduce-scatter and
//     allgather) over all ranks, or, for the group allreduce, only over the butterfly dimensions of the version's
//     training step (ButterflyGrouping, WAGMA's Algorithm 1), i.e. inside the P/S groups of that step. Every
//     message also carries the set of ranks whose contribution was fresh.
//
// Versions run in order on every rank, so the k-th schedule message of a (source, destination, tag) triple always
// belongs to the same version at both ends. Every message carries its version: schedule messages also in their tag
// (modulo 8), and one of another version is a protocol error; activation messages in their payload, checked by a
// listener that keeps one receive per neighbour posted across versions and drops activations of versions that
// already started (fflib2 puts the version in the activation tag and re-posts its receives per version; with
// receives posted per version tag, the duplicates of simultaneous activators pile up unmatched, and matching
// slows down as they grow).
//
// Send buffer policies:
//   Accumulate (eager-SGD, Fig. 7): a call adds its data to the buffer; a version takes the whole buffer and leaves
//     it null, so a late rank's gradient goes into the next version it contributes to, summed with newer ones.
//   Replace (WAGMA-SGD, Fig. 3): a call overwrites the buffer with its model; a version contributes the buffer and
//     keeps it, so a late rank keeps contributing its last model (at first: its initial model).
//
// A call for version t deposits its data, activates t if it may, waits only if t has not completed yet, and returns
// a completed result; which one, when t completed before the call (a late rank), is the late-result policy:
//   OwnVersion (default): version t's own result, the sum of the rank's own step's group. WAGMA's Algorithm 2 (lines
//     9-13) averages W'_t with W_t^sum, the sum of step t, at every step; eager-SGD's Fig. 7 applies step t's sum at
//     step t. The progress agent keeps every completed result no call has returned yet, at most kept_results of
//     them (the oldest is dropped beyond that, and its call gets no result): with a synchronous point every k
//     versions a rank cannot fall further behind (see kept_results), so nothing is dropped.
//   Newest: the newest completed result, read again by later calls until a newer one completes: the single receive
//     buffer of fflib2's persistent schedules, which every execution overwrites and the Deep500 operators of the
//     eager-SGD and WAGMA reference code copy out at every call (eager-SGD paper sec. 4.1 "Persistent schedules"
//     and sec. 5: a rank lagging by more than one step sees only the latest data).
// own_data_included says whether this call's data (its deposit for version t) is part of the returned sum: true for
// a rank whose data was in time for its version, false for a late rank (its data goes into a later version).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/RankContext.hpp"
#include "algorithms/collectives/ButterflyGrouping.hpp"
#include "algorithms/collectives/PartialReduction.hpp"
#include "algorithms/comm/Comm.hpp"

namespace quorum {

enum class ActivationPolicy { Solo, Majority };
enum class SendBufferPolicy { Accumulate, Replace };
enum class LateResultPolicy { OwnVersion, Newest };  // see above

const char* to_string(LateResultPolicy p);
// "own_version" or "newest"; false for anything else.
bool parse_late_result(const std::string& text, LateResultPolicy& out);

// Results an OwnVersion rank keeps when nothing bounds its lag: the span of fflib2's solo limiter (every 33rd
// execution synchronous), the bound the eager-SGD reference implementation runs with.
constexpr std::int64_t kDefaultKeptResults = 32;
// Instances of one rank that may run at once (PartialAllreduceConfig::instance): their tags share 16 bits.
constexpr std::size_t kMaxPartialInstances = 128;

// What a call gets back.
struct PartialResult {
  std::int64_t version = -1;          // the execution this result comes from; -1: none (dropped, see kept_results)
  std::int64_t step = -1;             // its training step
  std::vector<float> sum;             // sum of the contributions of the reduction group
  std::vector<int> group;             // members of the reduction (all ranks, or the rank's group), ascending
  std::vector<int> fresh;             // members whose contribution was their data for that very version
  bool own_data_included = false;     // this call's data is part of sum
  bool late = false;                  // the version of this call had completed before the call
  bool reused = false;                // Newest: an earlier call returned this very result already
  bool has_result() const { return version >= 0; }
};

struct PartialAllreduceConfig {
  ActivationPolicy activation = ActivationPolicy::Solo;
  SendBufferPolicy buffer = SendBufferPolicy::Accumulate;
  std::int64_t versions = 0;          // executions served; every rank calls exactly this many times
  LateResultPolicy late_result = LateResultPolicy::OwnVersion;
  // OwnVersion: the most completed results a rank keeps for its later calls (memory: kept_results x the vector).
  // The caller sets the bound its synchronisation implies: a synchronous point every k versions (a global
  // allreduce, a synchronous version) lets no rank's agent complete a version past it before the rank reaches it,
  // so at most k results wait. Must be > 0.
  std::int64_t kept_results = kDefaultKeptResults;
  double logical_bytes = 0;           // simulated size of the whole vector
  PartialSchedule schedule = PartialSchedule::RecursiveDoubling;
  std::uint64_t seed = 1;             // majority initiators come from Stream::Majority of this seed
  // Every k-th version (k > 0) runs synchronously: no activation, each rank joins at its own call with fresh data,
  // as the bounded-staleness "solo limiter" of the eager-SGD reference implementation (fflib2) does every 33rd
  // execution. It caps staleness at k - 1 versions and re-aligns ranks that drifted apart. 0: never.
  std::int64_t synchronous_every = 0;
  std::vector<float> initial_buffer;  // Replace: what a rank contributes before its first call; Accumulate: the
                                      // vector size is taken from it (zeros)
  // Reduce only inside the groups of the version's step (wait-avoiding group allreduce); all ranks if unset.
  std::optional<ButterflyGrouping> grouping;
  // The training step a version belongs to (grouping and staleness in steps); the identity if empty.
  std::function<std::int64_t(std::int64_t)> step_of_version;
  Channel activation_channel = Channel::Activation;
  Channel schedule_channel = Channel::PartialCollective;
  int control_sub = 0;  // two Control sub-tags from here on carry the rank's main-agent/agent wake-ups
  // Instances of one rank that run at once (eager-SGD's per-bucket collectives) take distinct numbers 0..127:
  // their activation, schedule and Control tags are offset by it. So does a collective that follows another on the
  // same Comm: the last version's main-agent request and an activator's duplicate may arrive after finish(), and
  // the next collective's agent with the same tags would take them (on MPI, where a Comm outlives the objects).
  int instance = 0;
  // Metrics (may be null): per rank and version "fresh_contribution" (0/1) and the "staleness" histogram (steps),
  // per reduction group and version "active_processes" (global) or "group_active_processes" (groups).
  StepObserver* observer = nullptr;
  std::string contributions_table;  // if not empty: one row per rank and version (step, group, fresh, staleness)
  // Called by the progress agent after every version with that version's full result (instrumentation, tests).
  std::function<void(const PartialResult&)> on_version;
  // Whether a call's result lists its reduction's members and fresh ranks (PartialResult::group and ::fresh). Over
  // all ranks that is two vectors of up to P per rank and version, O(P^2) per step: algorithms that read neither
  // turn it off (on_version's results always have them).
  bool result_ranks = true;
};

// Counters of one rank, for tests and diagnostics.
struct PartialAllreduceStats {
  std::int64_t executed = 0;               // versions this rank executed
  std::int64_t internal_activations = 0;   // versions this rank activated itself
  std::int64_t activations_sent = 0;       // activation messages sent (own and forwarded)
  std::int64_t duplicate_activations = 0;  // activations dropped because their version had already started
  std::int64_t fresh_contributions = 0;    // versions this rank contributed fresh data to
  std::int64_t late_calls = 0;             // calls whose version had completed before the call
  std::int64_t results_dropped = 0;        // OwnVersion: results dropped beyond kept_results before their call
  std::vector<std::int64_t> executed_versions;  // in execution order
};

class PartialAllreduce {
 public:
  // Spawns the progress agent. Every rank of the world constructs one with the same configuration.
  PartialAllreduce(Comm& comm, PartialAllreduceConfig config);
  PartialAllreduce(const PartialAllreduce&) = delete;
  PartialAllreduce& operator=(const PartialAllreduce&) = delete;
  ~PartialAllreduce();

  // This rank's call for its next version (see above). data must have the size of initial_buffer.
  PartialResult call(std::vector<float> data);
  // The same call in two halves, so that the main agent can go on computing in between: submit deposits the data
  // and activates the version (it never blocks); complete waits for the version and returns what call() would.
  struct PendingCall {
    std::int64_t version = -1;
    bool wait = false;
  };
  PendingCall submit(std::vector<float> data);
  PartialResult complete(const PendingCall& call);
  // After the last call: waits until the agent has executed every version, then stops it. Must be called.
  void finish();

  // Which rank initiates version v under the majority policy (the same on every rank).
  static int majority_initiator(std::uint64_t seed, std::int64_t version, int world_size);

  PartialAllreduceStats stats() const;
  // What the next version would take from this rank's send buffer now.
  std::vector<float> send_buffer() const;

  struct Shared;  // state shared by the main agent and the progress agent (implementation detail)

 private:
  Comm& comm_;
  std::shared_ptr<Shared> shared_;
  std::unique_ptr<Agent> agent_;
  bool finished_ = false;
};

// The preset configurations of the three collectives the papers define.
PartialAllreduceConfig solo_allreduce_config(std::int64_t versions, double logical_bytes, std::size_t elements);
PartialAllreduceConfig majority_allreduce_config(std::int64_t versions, double logical_bytes, std::size_t elements,
                                                 std::uint64_t seed);
// Wait-avoiding group allreduce of models (Replace), any rank activates (solo activation).
PartialAllreduceConfig group_allreduce_config(std::int64_t versions, double logical_bytes,
                                              std::vector<float> initial_model, ButterflyGrouping grouping);

}  // namespace quorum
