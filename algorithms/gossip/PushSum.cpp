#include "algorithms/gossip/PushSum.hpp"

#include <bit>
#include <stdexcept>

#include "kernels/optim/VectorOps.hpp"

namespace quorum {

Payload PushSum::push(int out_peers, std::int64_t step) {
  const double share = 1.0 / static_cast<double>(out_peers + 1);
  vec::scale(x_, static_cast<float>(share));
  w_ *= share;
  // The weight travels bit for bit in the control ints.
  return Payload{x_, {std::bit_cast<std::int64_t>(w_), step}};
}

std::int64_t PushSum::absorb(const Payload& message) {
  if (message.ints.size() < 2 || message.values.size() != x_.size())
    throw std::logic_error("push-sum: malformed message");
  vec::add(x_, message.values);
  w_ += std::bit_cast<double>(message.ints[0]);
  return message.ints[1];
}

void PushSum::debiased(std::vector<float>& z) const {
  z.resize(x_.size());
  const double inv = 1.0 / w_;
  for (std::size_t i = 0; i < x_.size(); ++i) z[i] = static_cast<float>(static_cast<double>(x_[i]) * inv);
}

}  // namespace quorum
