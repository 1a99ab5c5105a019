#pragma once
// Message tags. A tag is (channel, sub-tag) plus one flag that says whether receivers of this tag listen to any
// source. Point-to-point matching is on (source, destination, tag), in order per triple, as in MPI. A given tag is
// either always received from a named source or always from any source (kAnySource); the flag records which, so
// every backend can match efficiently. Tags stay below 2^24, well inside MPI_TAG_UB.
#include <cstdint>

namespace quorum {

using Tag = std::int32_t;
inline constexpr int kAnySource = -1;

// Channels keep concurrent protocols apart (a progress agent's collective and the main agent's). Add new ones at
// the end; never reuse a number. Control, Activation and GroupGenerator are control channels: they carry a few
// integers, never model data, and the simulator delivers them without bandwidth sharing (DirectMessages).
enum class Channel : int {
  Control = 1,          // agent wake-ups and shutdown (self messages)
  SyncAllreduce = 2,    // synchronous allreduce of the main agent
  SyncAllreduceDep = 3, // dependency/real-data tree of the phase-fidelity ring
  Activation = 4,       // activation messages of partial collectives
  PartialCollective = 5,// solo/majority allreduce schedule
  GroupAllreduce = 6,   // wait-avoiding group allreduce schedule
  Gossip = 7,           // D-PSGD, SGP, AD-PSGD exchanges
  GossipRequest = 8,    // AD-PSGD averaging requests
  PReduce = 9,          // Prague partial allreduce
  GroupGenerator = 10,  // Prague group generator requests and replies
  ParameterServer = 11, // asynchronous parameter server
  Barrier = 12,         // barriers
  Benchmark = 13,       // microbenchmarks
  Gather = 14,          // gathers of results to rank 0
};

namespace tags {
inline constexpr Tag kAnySourceBit = Tag{1} << 23;
inline constexpr int kMaxSub = (1 << 16) - 1;

constexpr Tag make(Channel channel, int sub = 0) { return (static_cast<Tag>(channel) << 16) | (sub & kMaxSub); }
constexpr Tag make_any_source(Channel channel, int sub = 0) { return make(channel, sub) | kAnySourceBit; }
constexpr bool is_any_source(Tag tag) { return (tag & kAnySourceBit) != 0; }
constexpr Channel channel_of(Tag tag) { return static_cast<Channel>((tag >> 16) & 0x7F); }
constexpr int sub_of(Tag tag) { return tag & kMaxSub; }
}  // namespace tags

}  // namespace quorum
