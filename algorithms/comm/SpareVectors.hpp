#pragma once
// Vectors received and read, kept to carry the next sends. A message's values travel in a vector that moves from
// sender to receiver; when the receiver drops it and the sender allocates a new one for its next message, the
// allocator returns and faults in pages of the model's size at every message (ModelExchange, PartialReduction).
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace quorum {

class SpareVectors {
 public:
  // Keeps at most `limit` vectors: a rank that receives more than it sends stops hoarding there.
  explicit SpareVectors(std::size_t limit) : limit_(limit) {}

  // A vector holding `values`: a spare one when there is one (and values to copy), else a new one.
  std::vector<float> carrying(std::span<const float> values) {
    std::vector<float> out;
    if (!values.empty() && !spares_.empty()) {
      out = std::move(spares_.back());
      spares_.pop_back();
      ++reused_;
    }
    out.assign(values.begin(), values.end());
    return out;
  }
  // Takes back a vector once read; empty ones and those beyond the limit are dropped.
  void give_back(std::vector<float>&& values) {
    if (values.empty() || spares_.size() >= limit_) return;
    spares_.push_back(std::move(values));
  }
  // How many vectors carrying() handed out again (for tests).
  std::size_t reused() const { return reused_; }

 private:
  std::size_t limit_;
  std::vector<std::vector<float>> spares_;
  std::size_t reused_ = 0;
};

}  // namespace quorum
