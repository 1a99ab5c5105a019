#include "algorithms/collectives/PartialReduction.hpp"

#include <bit>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "algorithms/NamedEnum.hpp"
#include "algorithms/collectives/Partition.hpp"
#include "algorithms/collectives/PowerOfTwoFold.hpp"
#include "kernels/optim/VectorOps.hpp"

namespace quorum {

const char* to_string(PartialSchedule s) {
  return s == PartialSchedule::Rabenseifner ? "rabenseifner" : "recursive_doubling";
}

bool parse_partial_schedule(const std::string& text, PartialSchedule& out) {
  return parse_named(text, {PartialSchedule::RecursiveDoubling, PartialSchedule::Rabenseifner}, out);
}

FreshRanks::FreshRanks(int world_size, bool listed)
    : words_(listed ? static_cast<std::size_t>((world_size + 63) / 64) : 0, 0), listed_(listed) {}

void FreshRanks::insert(int rank) {
  if (!listed_) {
    ++counted_;  // each rank inserts itself once, into its own partial sum
    return;
  }
  words_[static_cast<std::size_t>(rank / 64)] |= std::int64_t{1} << (rank % 64);
}

bool FreshRanks::contains(int rank) const {
  if (!listed_) throw std::logic_error("partial allreduce: the fresh ranks were counted, not listed");
  return (words_[static_cast<std::size_t>(rank / 64)] >> (rank % 64)) & 1;
}

int FreshRanks::count() const {
  if (!listed_) return static_cast<int>(counted_);
  int n = 0;
  for (std::int64_t w : words_) n += std::popcount(static_cast<std::uint64_t>(w));
  return n;
}

void FreshRanks::clear() {
  std::fill(words_.begin(), words_.end(), 0);
  counted_ = 0;
}

void FreshRanks::unite(const std::vector<std::int64_t>& message_ints) {
  const std::size_t kept = listed_ ? words_.size() : 1;
  if (message_ints.size() != kept + 1)
    throw std::logic_error("partial allreduce: a partner sent " + std::to_string(message_ints.size() - 1) +
                           " words of fresh ranks, this rank keeps " + std::to_string(kept));
  if (!listed_) {
    counted_ += message_ints[1];  // disjoint sets: the sizes add
    return;
  }
  for (std::size_t i = 0; i < words_.size(); ++i) words_[i] |= message_ints[i + 1];
}

std::vector<std::int64_t> FreshRanks::message_ints(std::int64_t version) const {
  if (!listed_) return {version, counted_};
  std::vector<std::int64_t> ints;
  ints.reserve(1 + words_.size());
  ints.push_back(version);
  ints.insert(ints.end(), words_.begin(), words_.end());
  return ints;
}

PartialReduction::PartialReduction(Comm& comm, PartialSchedule schedule, double logical_bytes, TagOf tag_of)
    : c_(comm), schedule_(schedule), logical_bytes_(logical_bytes), tag_of_(std::move(tag_of)) {}

void PartialReduction::over_dimensions(std::int64_t version, PartialSum& p, const std::vector<int>& dims) {
  butterfly(version, p, c_.rank(), dims, [](int r) { return r; });
}

void PartialReduction::over_world(std::int64_t version, PartialSum& p) {
  const int rank = c_.rank();
  const PowerOfTwoFold fold(c_.size(), rank);
  const Tag in = tag_of_(version, kFoldInPhase), out = tag_of_(version, kFoldOutPhase);
  if (rank < 2 * fold.extra) {
    if (fold.virtual_index < 0) {
      c_.send(rank + 1, in, pack(version, p.data, p.fresh), logical_bytes_);
    } else {
      Message m = c_.recv(rank - 1, in);
      check_version(version, m);
      vec::add(m.payload.values, p.data);  // lower rank first, as in the synchronous fold
      c_.charge_reduction(logical_bytes_, p.data.size());
      std::swap(p.data, m.payload.values);
      spares_.give_back(std::move(m.payload.values));
      p.fresh.unite(m.payload.ints);
    }
  }
  if (fold.virtual_index >= 0) {
    std::vector<int> dims;
    for (int d = 0; (1 << d) < fold.p2; ++d) dims.push_back(d);
    butterfly(version, p, fold.virtual_index, dims, [&fold](int index) { return fold.real_index(index); });
  }
  if (rank < 2 * fold.extra) {
    if (fold.virtual_index < 0) {
      Message m = c_.recv(rank + 1, out);
      check_version(version, m);
      std::swap(p.data, m.payload.values);
      spares_.give_back(std::move(m.payload.values));
      p.fresh.clear();
      p.fresh.unite(m.payload.ints);
    } else {
      c_.send(rank - 1, out, pack(version, p.data, p.fresh), logical_bytes_);
    }
  }
}

// The reduction over the butterfly dimensions `dims` of virtual index vi (real rank: real(index)).
//   recursive doubling: one exchange of the whole vector per dimension (fflib2's allreduce); both partners end
//     with the same bits (a + b == b + a).
//   Rabenseifner: recursive halving (reduce-scatter) over the dimensions in order, then recursive doubling of
//     the reduced blocks (allgather) in reverse order: 2 (n-1)/n of the vector per member instead of log2 n times
//     all of it; every block is summed on one member and copied to the others.
template <typename Real>
void PartialReduction::butterfly(std::int64_t version, PartialSum& p, int vi, const std::vector<int>& dims,
                                 Real real) {
  const int k = static_cast<int>(dims.size());
  const bool doubling = schedule_ == PartialSchedule::RecursiveDoubling;
  if (k > kMaxDimensions)
    throw std::logic_error("partial allreduce: " + std::to_string(k) + " butterfly dimensions, at most " +
                           std::to_string(kMaxDimensions) + " have tags of their own");
  // One chain of exchanges (Comm::exchange): k phases for recursive doubling; for Rabenseifner's, k of the
  // reduce-scatter over dims in order, then k of the allgather in reverse order. Each phase's functions capture one
  // pointer, which std::function keeps in place: no allocation per version. What the phases read is here, in three
  // lines of the agent's stack beside the chain: the partial sum (moved in for the chain's length, and back), the
  // dimensions, the communicator and the message size. Read elsewhere (this reduction, the grouping's vector, the
  // caller's sum), each was one more line a phase to fetch once the other ranks' phases had evicted it (3% of the
  // misses at 4,096 ranks: docs/performance-log.md, "A butterfly's phase reads its state on the agent's stack").
  const std::size_t elements = p.data.size();
  struct State {
    PartialReduction& self;
    Comm& c;
    double logical_bytes;
    PartialSum p;
    std::int64_t version;
    int vi, k;
    std::array<std::uint8_t, kMaxDimensions> dims;
    Real& real;
    BlockPartition part;
    int lo, hi;  // Rabenseifner's: the blocks this member is responsible for
    // Phase j's butterfly dimension, and whether it belongs to Rabenseifner's allgather.
    int bit(int j) const { return 1 << dims[static_cast<std::size_t>(j < k ? j : 2 * k - 1 - j)]; }
    bool upper(int j) const { return (vi & bit(j)) != 0; }
    // Rabenseifner's reduce-scatter: the half kept and the half given.
    int keep_lo(int j) const { return upper(j) ? (lo + hi) / 2 : lo; }
    int keep_hi(int j) const { return upper(j) ? hi : (lo + hi) / 2; }
    int give_lo(int j) const { return upper(j) ? lo : (lo + hi) / 2; }
    int give_hi(int j) const { return upper(j) ? (lo + hi) / 2 : hi; }
  } st{*this,
       c_,
       logical_bytes_,
       std::move(p),
       version,
       vi,
       k,
       {},
       real,
       BlockPartition{elements, logical_bytes_, 1 << k},
       0,
       1 << k};
  std::copy(dims.begin(), dims.end(), st.dims.begin());
  Comm::ExchangeChain chain;
  chain.phases = doubling ? k : 2 * k;
  chain.partner = [s = &st](int j) { return s->real(s->vi ^ s->bit(j)); };
  // The allgather's phase over dims[d] is tagged k + d, as it always was.
  chain.tag = [s = &st](int j) { return s->self.tag_of_(s->version, j < s->k ? j : s->k + (2 * s->k - 1 - j)); };
  if (doubling) {
    chain.payload = [s = &st](int) { return s->self.pack(s->version, s->p.data, s->p.fresh); };
    chain.logical_bytes = [s = &st](int) { return s->logical_bytes; };
    chain.received = [s = &st](int, Message& m) {
      check_version(s->version, m);
      vec::add(s->p.data, m.payload.values);
      s->c.charge_reduction(s->logical_bytes, m.payload.values.size());
      s->p.fresh.unite(m.payload.ints);
      s->self.spares_.give_back(std::move(m.payload.values));
    };
  } else {
    chain.payload = [s = &st](int j) {
      const auto values = j < s->k ? s->part.span(s->p.data, s->give_lo(j), s->give_hi(j))
                                   : s->part.span(s->p.data, s->lo, s->hi);
      return s->self.pack(s->version, values, s->p.fresh);
    };
    chain.logical_bytes = [s = &st](int j) {
      return j < s->k ? s->part.bytes_of(s->give_lo(j), s->give_hi(j)) : s->part.bytes_of(s->lo, s->hi);
    };
    chain.received = [s = &st](int j, Message& m) {
      check_version(s->version, m);
      if (j < s->k) {  // reduce-scatter: sum the half kept
        const int keep_lo = s->keep_lo(j), keep_hi = s->keep_hi(j);
        vec::add(s->part.span(s->p.data, keep_lo, keep_hi), m.payload.values);
        s->c.charge_reduction(s->part.bytes_of(keep_lo, keep_hi), m.payload.values.size());
        s->p.fresh.unite(m.payload.ints);
        s->lo = keep_lo;
        s->hi = keep_hi;
      } else {  // allgather: copy the partner's blocks beside this member's
        const int width = s->hi - s->lo;
        const int other_lo = s->upper(j) ? s->lo - width : s->hi;
        const auto dst = s->part.span(s->p.data, other_lo, other_lo + width);
        std::copy(m.payload.values.begin(), m.payload.values.end(), dst.begin());
        s->lo = std::min(s->lo, other_lo);
        s->hi = s->lo + 2 * width;
      }
      s->self.spares_.give_back(std::move(m.payload.values));
    };
  }
  c_.exchange(chain);
  p = std::move(st.p);
}

Payload PartialReduction::pack(std::int64_t version, std::span<const float> values, const FreshRanks& fresh) {
  return Payload{spares_.carrying(values), fresh.message_ints(version)};
}

void PartialReduction::check_version(std::int64_t version, const Message& m) {
  if (m.payload.ints.empty() || m.payload.ints[0] != version)
    throw std::logic_error("partial allreduce: schedule message of version " +
                           (m.payload.ints.empty() ? std::string("?") : std::to_string(m.payload.ints[0])) +
                           " received while executing version " + std::to_string(version));
}

}  // namespace quorum
