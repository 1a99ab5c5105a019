#include "algorithms/collectives/PartialReduction.hpp"

#include <bit>

#include <algorithm>
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
    : words_(listed ? static_cast<std::size_t>((world_size + 63) / 64) : 1, 0), listed_(listed) {}

void FreshRanks::insert(int rank) {
  if (!listed_) {
    ++words_[0];  // each rank inserts itself once, into its own partial sum
    return;
  }
  words_[static_cast<std::size_t>(rank / 64)] |= std::int64_t{1} << (rank % 64);
}

bool FreshRanks::contains(int rank) const {
  if (!listed_) throw std::logic_error("partial allreduce: the fresh ranks were counted, not listed");
  return (words_[static_cast<std::size_t>(rank / 64)] >> (rank % 64)) & 1;
}

int FreshRanks::count() const {
  if (!listed_) return static_cast<int>(words_[0]);
  int n = 0;
  for (std::int64_t w : words_) n += std::popcount(static_cast<std::uint64_t>(w));
  return n;
}

void FreshRanks::clear() { std::fill(words_.begin(), words_.end(), 0); }

void FreshRanks::unite(const std::vector<std::int64_t>& message_ints) {
  if (message_ints.size() != words_.size() + 1)
    throw std::logic_error("partial allreduce: a partner sent " + std::to_string(message_ints.size() - 1) +
                           " words of fresh ranks, this rank keeps " + std::to_string(words_.size()));
  if (!listed_) {
    words_[0] += message_ints[1];  // disjoint sets: the sizes add
    return;
  }
  for (std::size_t i = 0; i < words_.size(); ++i) words_[i] |= message_ints[i + 1];
}

std::vector<std::int64_t> FreshRanks::message_ints(std::int64_t version) const {
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
  if (schedule_ == PartialSchedule::RecursiveDoubling) {
    // Each phase's functions capture one pointer, which std::function keeps in place: no allocation per version.
    struct State {
      PartialReduction& self;
      PartialSum& p;
      std::int64_t version;
      int vi;
      const std::vector<int>& dims;
      Real& real;
    } st{*this, p, version, vi, dims, real};
    Comm::ExchangeChain chain;
    chain.phases = k;
    chain.partner = [s = &st](int j) { return s->real(s->vi ^ (1 << s->dims[static_cast<std::size_t>(j)])); };
    chain.tag = [s = &st](int j) { return s->self.tag_of_(s->version, j); };
    chain.payload = [s = &st](int) { return s->self.pack(s->version, s->p.data, s->p.fresh); };
    chain.logical_bytes = [s = &st](int) { return s->self.logical_bytes_; };
    chain.received = [s = &st](int, Message& m) {
      check_version(s->version, m);
      vec::add(s->p.data, m.payload.values);
      s->self.c_.charge_reduction(s->self.logical_bytes_, m.payload.values.size());
      s->p.fresh.unite(m.payload.ints);
      s->self.spares_.give_back(std::move(m.payload.values));
    };
    c_.exchange(chain);
    return;
  }
  const BlockPartition part{p.data.size(), logical_bytes_, 1 << k};
  int lo = 0, hi = 1 << k;  // the blocks this member is responsible for
  for (int j = 0; j < k; ++j) {
    const int bit = 1 << dims[static_cast<std::size_t>(j)], mid = (lo + hi) / 2;
    const bool upper = (vi & bit) != 0;
    const int keep_lo = upper ? mid : lo, keep_hi = upper ? hi : mid;
    const int give_lo = upper ? lo : mid, give_hi = upper ? mid : hi;
    Message m = swap(version, real(vi ^ bit), tag_of_(version, j),
                     pack(version, part.span(p.data, give_lo, give_hi), p.fresh), part.bytes_of(give_lo, give_hi));
    vec::add(part.span(p.data, keep_lo, keep_hi), m.payload.values);
    c_.charge_reduction(part.bytes_of(keep_lo, keep_hi), m.payload.values.size());
    p.fresh.unite(m.payload.ints);
    spares_.give_back(std::move(m.payload.values));
    lo = keep_lo;
    hi = keep_hi;
  }
  for (int j = k - 1; j >= 0; --j) {
    const int bit = 1 << dims[static_cast<std::size_t>(j)], width = hi - lo;
    const bool upper = (vi & bit) != 0;
    const int other_lo = upper ? lo - width : hi;
    Message m = swap(version, real(vi ^ bit), tag_of_(version, k + j), pack(version, part.span(p.data, lo, hi), p.fresh),
                     part.bytes_of(lo, hi));
    const auto dst = part.span(p.data, other_lo, other_lo + width);
    std::copy(m.payload.values.begin(), m.payload.values.end(), dst.begin());
    spares_.give_back(std::move(m.payload.values));
    lo = std::min(lo, other_lo);
    hi = lo + 2 * width;
  }
}

// Sends `out` to partner and returns what partner sent on the same tag (checked to be of this version).
Message PartialReduction::swap(std::int64_t version, int partner, Tag tag, Payload out, double bytes) {
  auto recv = c_.irecv(partner, tag);
  auto send = c_.isend(partner, tag, std::move(out), bytes);
  c_.wait(recv);
  Message m = c_.take(recv);
  check_version(version, m);
  c_.wait(send);
  return m;
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
