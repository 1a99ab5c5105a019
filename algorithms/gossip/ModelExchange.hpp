#pragma once
// One round of model exchange with fixed peers, without blocking in between: start() posts every receive and every
// send, finish() waits for all of them. D-PSGD starts the round before computing its gradient and finishes it
// after, so the transfer overlaps the computation; SGP's overlap variant keeps a round in flight across a step.
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/comm/Comm.hpp"
#include "algorithms/comm/SpareVectors.hpp"

namespace quorum {

class ModelExchange {
 public:
  ModelExchange(Comm& comm, Tag tag) : comm_(comm), tag_(tag) {}

  // Sends payload to every rank of `to` and expects one message from every rank of `from`. Messages of one round
  // between two ranks match in order, so rounds may overlap as long as every rank starts them in the same order.
  void start(const std::vector<int>& to, const std::vector<int>& from, const Payload& payload, double logical_bytes);
  // The same with the values read in place (a rank's model), so that no copy is made beside the messages' own.
  void start(const std::vector<int>& to, const std::vector<int>& from, std::span<const float> values,
             const std::vector<std::int64_t>& ints, double logical_bytes);
  // Waits for the whole round; returns the received messages in the order of `from`.
  std::vector<Message> finish();
  // Takes back the vectors of a finished round's messages, once read: the next rounds' sends copy their payload
  // into them instead of allocating. A gossip step with the MLP proxy sends two models of 407 KB per rank; freshly
  // allocated each step, their pages were returned and faulted in again by the allocator at every step.
  void recycle(std::vector<Message>& received);
  bool in_flight() const { return !requests_.empty(); }
  // Sends so far whose vector was a recycled one (for tests).
  std::size_t recycled_sends() const { return spares_.reused(); }

 private:
  Comm& comm_;
  Tag tag_;
  std::vector<RequestPtr> requests_;  // receives first, then sends
  std::size_t receives_ = 0;
  // Recycled vectors for the next sends; a round sends to a few peers (D-PSGD two, SGP one to a handful).
  SpareVectors spares_{16};
};

}  // namespace quorum
