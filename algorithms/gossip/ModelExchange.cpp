#include "algorithms/gossip/ModelExchange.hpp"

#include <stdexcept>

namespace quorum {

void ModelExchange::start(const std::vector<int>& to, const std::vector<int>& from, const Payload& payload,
                          double logical_bytes) {
  start(to, from, payload.values, payload.ints, logical_bytes);
}

void ModelExchange::start(const std::vector<int>& to, const std::vector<int>& from, std::span<const float> values,
                          const std::vector<std::int64_t>& ints, double logical_bytes) {
  if (in_flight()) throw std::logic_error("ModelExchange::start: the previous round has not finished");
  for (int src : from) requests_.push_back(comm_.irecv(src, tag_));
  receives_ = from.size();
  for (int dst : to)
    requests_.push_back(comm_.isend(dst, tag_, Payload{spares_.carrying(values), ints}, logical_bytes));
}

std::vector<Message> ModelExchange::finish() {
  comm_.wait_all(requests_);
  std::vector<Message> got;
  got.reserve(receives_);
  for (std::size_t i = 0; i < receives_; ++i) got.push_back(comm_.take(requests_[i]));
  requests_.clear();
  receives_ = 0;
  return got;
}

void ModelExchange::recycle(std::vector<Message>& received) {
  for (Message& m : received) spares_.give_back(std::move(m.payload.values));
  received.clear();
}

}  // namespace quorum
