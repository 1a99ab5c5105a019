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
  for (int dst : to) {
    Payload copy{{}, ints};
    if (!spare_.empty() && !values.empty()) {
      copy.values = std::move(spare_.back());
      spare_.pop_back();
      ++recycled_sends_;
    }
    copy.values.assign(values.begin(), values.end());
    requests_.push_back(comm_.isend(dst, tag_, std::move(copy), logical_bytes));
  }
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
  for (Message& m : received)
    if (!m.payload.values.empty()) spare_.push_back(std::move(m.payload.values));
  received.clear();
}

}  // namespace quorum
