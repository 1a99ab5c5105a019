#pragma once
// Push-sum state of one rank (Kempe et al. 2003; SGP, Assran et al. 2019, Algorithm 1): a numerator x and a weight
// w, whose ratio z = x / w is the rank's model. A push keeps the share p of (x, w) and sends the same share to each
// out-peer; absorbing adds what in-peers sent. The sum of all numerators (and of all weights) over the ranks and
// the messages in flight never changes, whatever the graph: that is what lets SGP use directed, time-varying graphs,
// with the weights correcting (de-biasing) the models when in- and out-degrees differ or messages are late.
#include <cstdint>
#include <vector>

#include "algorithms/comm/Payload.hpp"

namespace quorum {

class PushSum {
 public:
  explicit PushSum(std::vector<float> x) : x_(std::move(x)) {}

  // Keeps 1/(out_peers + 1) of (x, w) and returns the message carrying the same share to each out-peer. step is
  // carried along to check that rounds match.
  Payload push(int out_peers, std::int64_t step);
  // Adds a share pushed by an in-peer. Returns the step it was pushed at.
  std::int64_t absorb(const Payload& message);
  // z = x / w, the de-biased model.
  void debiased(std::vector<float>& z) const;

  std::vector<float>& numerator() { return x_; }
  const std::vector<float>& numerator() const { return x_; }
  double weight() const { return w_; }

 private:
  std::vector<float> x_;
  double w_ = 1.0;
};

}  // namespace quorum
