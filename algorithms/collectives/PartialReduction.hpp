#pragma once
// The reduction a partial collective (PartialAllreduce) runs once a version is activated on a rank: a butterfly over
// all ranks (with the usual fold when P is not a power of two), or over some of the butterfly's dimensions (the
// group allreduce's groups), by recursive doubling or by Rabenseifner's reduce-scatter and allgather. Every message
// carries its version, checked on receipt (one of another version is a protocol error), and the set of ranks whose
// contribution was fresh, so the result says who contributed current data.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/comm/Comm.hpp"
#include "algorithms/comm/SpareVectors.hpp"

namespace quorum {

// Recursive doubling (fflib2's, the papers') or Rabenseifner's reduce-scatter + allgather on the same butterfly
// dimensions (bandwidth-optimal: 2 (n-1)/n of the vector per member instead of log2 n times all of it).
enum class PartialSchedule { RecursiveDoubling, Rabenseifner };
const char* to_string(PartialSchedule s);
bool parse_partial_schedule(const std::string& text, PartialSchedule& out);

// Ranks whose contribution was fresh; it travels in a message's ints after the version.
//
// Listed: a bit per rank, so that the result can name them. Counted (listed = false): only how many, for a result
// that names nobody. The reduction merges only partial sums of disjoint sets of ranks (the butterfly's halves, the
// fold's pairs), so a count adds up exactly as the set's size would; it travels as one integer where the set takes
// P / 64, which made every exchange of a 4,096-rank reduction copy and OR 64 words: O(P^2 log P) per step.
class FreshRanks {
 public:
  explicit FreshRanks(int world_size, bool listed = true);
  void insert(int rank);
  bool contains(int rank) const;  // listed sets only
  int count() const;              // how many ranks are in the set
  void clear();
  // The set a partner sent (message_ints[0] is the version), of ranks disjoint from this set's.
  void unite(const std::vector<std::int64_t>& message_ints);
  // A message's ints carrying the set: the version, then the set's words, in one allocation (a reduction sends one
  // per partner and phase: at 4,096 ranks 49,000 a step).
  std::vector<std::int64_t> message_ints(std::int64_t version) const;

 private:
  std::vector<std::int64_t> words_;  // listed: bit r of word r / 64; counted: none
  std::int64_t counted_ = 0;         // counted: how many (in place: a word on the heap was one more line a phase to read)
  bool listed_;
};

// What travels through the reduction: the partial sum and who contributed fresh data to it.
struct PartialSum {
  std::vector<float> data;
  FreshRanks fresh;
};

// A version's schedule messages are tagged by phase: 0 .. 2k-1 for the butterfly, then the fold's two phases.
inline constexpr int kPartialPhasesPerVersion = 64;
inline constexpr int kFoldInPhase = 62, kFoldOutPhase = 63;
// So a butterfly has at most 31 dimensions (Rabenseifner's 2k phases below the fold's).
inline constexpr int kMaxDimensions = kFoldInPhase / 2;

class PartialReduction {
 public:
  using TagOf = std::function<Tag(std::int64_t version, int phase)>;

  PartialReduction(Comm& comm, PartialSchedule schedule, double logical_bytes, TagOf tag_of);

  // Over the butterfly dimensions `dims` of this rank: the members of its group for the version's step.
  void over_dimensions(std::int64_t version, PartialSum& p, const std::vector<int>& dims);
  // Over all ranks; for a P that is not a power of two the first 2r ranks fold in pairs first and out at the end.
  void over_world(std::int64_t version, PartialSum& p);

  // Sends that carried their values in a vector received earlier instead of a new one (see spares_).
  std::size_t recycled_sends() const { return spares_.reused(); }

 private:
  template <typename Real>
  void butterfly(std::int64_t version, PartialSum& p, int virtual_index, const std::vector<int>& dims, Real real);
  Payload pack(std::int64_t version, std::span<const float> values, const FreshRanks& fresh);
  static void check_version(std::int64_t version, const Message& m);

  Comm& c_;
  PartialSchedule schedule_;
  double logical_bytes_;
  TagOf tag_of_;
  // Vectors received and read, kept to carry the next sends: every butterfly message used to be a fresh vector of
  // up to the model's size and every received one was freed, a churn of log2 P vectors per rank and version. Sends
  // and receives alternate in every schedule, so a rank rarely holds more than one or two.
  SpareVectors spares_{4};
};

}  // namespace quorum
