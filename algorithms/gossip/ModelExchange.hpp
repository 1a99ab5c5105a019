#pragma once
// One round of model exchange with fixed peers, without blocking in between: start() posts every receive and every
// send, finish() waits for all of them. D-PSGD starts the round before computing its gradient and finishes it
// after, so the transfer overlaps the computation; SGP's overlap variant keeps a round in flight across a step.
#include <vector>

#include "algorithms/comm/Comm.hpp"

namespace quorum {

class ModelExchange {
 public:
  ModelExchange(Comm& comm, Tag tag) : comm_(comm), tag_(tag) {}

  // Sends payload to every rank of `to` and expects one message from every rank of `from`. Messages of one round
  // between two ranks match in order, so rounds may overlap as long as every rank starts them in the same order.
  void start(const std::vector<int>& to, const std::vector<int>& from, const Payload& payload, double logical_bytes);
  // Waits for the whole round; returns the received messages in the order of `from`.
  std::vector<Message> finish();
  bool in_flight() const { return !requests_.empty(); }

 private:
  Comm& comm_;
  Tag tag_;
  std::vector<RequestPtr> requests_;  // receives first, then sends
  std::size_t receives_ = 0;
};

}  // namespace quorum
