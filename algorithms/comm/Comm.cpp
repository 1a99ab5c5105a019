#include "algorithms/comm/Comm.hpp"

#include <stdexcept>
#include <vector>

#include "algorithms/comm/RequestList.hpp"
#include "algorithms/comm/Schedule.hpp"

namespace quorum {

void Comm::account_blocked(double since) {
  const double t = now();
  blocked_seconds_ += t - since;
  if (wait_observer_ != nullptr && t > since) wait_observer_->blocked(rank(), agent_id_, since, t);
}

void Comm::observe_waits(WaitObserver* observer) {
  wait_observer_ = observer;
  agent_id_ = 0;
  agents_spawned_ = std::make_shared<std::atomic<int>>(0);
}

void Comm::observe_waits_as_new_agent(Comm& agent_comm) const {
  if (wait_observer_ == nullptr) return;
  agent_comm.wait_observer_ = wait_observer_;
  agent_comm.agents_spawned_ = agents_spawned_;
  agent_comm.agent_id_ = ++*agents_spawned_;
}

void Comm::wait(const RequestPtr& request) {
  const double t0 = now();
  do_wait(request);
  account_blocked(t0);
}

std::size_t Comm::wait_any(std::span<const RequestPtr> requests) {
  const double t0 = now();
  const std::size_t i = do_wait_any(requests);
  account_blocked(t0);
  return i;
}

std::size_t Comm::wait_any(RequestList& requests) {
  const double t0 = now();
  const std::size_t i = do_wait_any_list(requests);
  requests.waited();
  account_blocked(t0);
  return i;
}

std::size_t Comm::do_wait_any_list(const RequestList& requests) {
  if (requests.live() == 0) throw std::logic_error("wait_any on a list of no live requests");
  if (requests.live() == requests.size()) return do_wait_any(requests.all());
  std::vector<RequestPtr> live;  // the list without its retired positions, in its order
  std::vector<std::size_t> position;
  live.reserve(requests.live());
  position.reserve(requests.live());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (!requests[i]) continue;
    live.push_back(requests[i]);
    position.push_back(i);
  }
  return position[do_wait_any(live)];
}

void Comm::wait_all(std::span<const RequestPtr> requests) {
  const double t0 = now();
  do_wait_all(requests);
  account_blocked(t0);
}

void Comm::do_wait_all(std::span<const RequestPtr> requests) {
  for (const auto& r : requests) do_wait(r);
}

void Comm::do_exchange(const ExchangeChain& chain) {
  for (int j = 0; j < chain.phases; ++j) {
    const int partner = chain.partner(j);
    const Tag tag = chain.tag(j);
    auto recv = irecv(partner, tag);
    auto send = isend(partner, tag, chain.payload(j), chain.logical_bytes(j));
    wait(recv);
    Message m = take(recv);
    wait(send);
    chain.received(j, m);
  }
}

void Comm::do_run_schedule(Schedule& schedule) {
  while (!schedule.empty()) schedule.complete(wait_any(schedule.pending()));
}

Message Comm::recv(int src, Tag tag) {
  auto r = irecv(src, tag);
  wait(r);
  return take(r);
}

void Comm::send(int dst, Tag tag, Payload payload, double logical_bytes) {
  wait(isend(dst, tag, std::move(payload), logical_bytes));
}

double Comm::compute(std::int64_t step, const std::function<void()>& math) {
  return compute_in_parts(step, math, {}, {});
}

double Comm::compute_in_parts(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                              const std::function<void(std::size_t)>& after_part) {
  static constexpr double kWhole[] = {1.0};
  const double d = do_compute(step, math, fractions.empty() ? std::span<const double>(kWhole) : fractions, after_part);
  compute_seconds_ += d;
  return d;
}

}  // namespace quorum
