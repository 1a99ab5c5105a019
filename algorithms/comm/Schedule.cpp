#include "algorithms/comm/Schedule.hpp"

namespace quorum {

void Schedule::on(RequestPtr request, Continuation then) {
  pending_.push_back(std::move(request));
  continuations_.push_back(std::move(then));
}

void Schedule::complete(std::size_t i) {
  RequestPtr done = std::move(pending_[i]);
  Continuation then = std::move(continuations_[i]);
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
  continuations_.erase(continuations_.begin() + static_cast<std::ptrdiff_t>(i));
  if (then) then(done);
}

}  // namespace quorum
