#include "algorithms/comm/Comm.hpp"

namespace quorum {

void Comm::wait(const RequestPtr& request) {
  const double t0 = now();
  do_wait(request);
  blocked_seconds_ += now() - t0;
}

std::size_t Comm::wait_any(std::span<const RequestPtr> requests) {
  const double t0 = now();
  const std::size_t i = do_wait_any(requests);
  blocked_seconds_ += now() - t0;
  return i;
}

void Comm::wait_all(std::span<const RequestPtr> requests) {
  const double t0 = now();
  do_wait_all(requests);
  blocked_seconds_ += now() - t0;
}

void Comm::do_wait_all(std::span<const RequestPtr> requests) {
  for (const auto& r : requests) do_wait(r);
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
  const double d = do_compute(step, math);
  compute_seconds_ += d;
  return d;
}

}  // namespace quorum
