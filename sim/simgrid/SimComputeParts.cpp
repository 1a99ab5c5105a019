// SimComm's phased compute (Comm::compute_in_parts): one step's modelled duration slept in parts, with the part's
// continuation (e.g. a gradient bucket's allreduce handed to an agent) run between them.
#include <simgrid/s4u/Actor.hpp>

#include "sim/simgrid/SimComm.hpp"

namespace sg4 = simgrid::s4u;

namespace quorum {

double SimComm::do_compute_in_parts(std::int64_t step, const std::function<void()>& math,
                                    std::span<const double> fractions,
                                    const std::function<void(std::size_t)>& after_part) {
  if (SlowLinks* slow = world_.slow_links()) slow->enter_step(rank_, step);  // as do_compute: a redrawn slow link
  // As do_compute: the math costs wall time only; with a pool it runs during the first sleep and resumed() awaits
  // it, so it is done before the first continuation reads its result.
  RankMathPool* pool = world_.math_pool().get();
  if (math && pool == nullptr) math();
  if (math && pool != nullptr) pool->submit(rank_, math);
  const double t0 = now();
  const double d = world_.compute().duration(rank_, step);
  double cumulative = 0;
  for (std::size_t i = 0; i < fractions.size(); ++i) {
    cumulative += fractions[i];
    // Parts end at cumulative fractions of the same duration; the last ends at t0 + d exactly.
    const double end = i + 1 == fractions.size() ? t0 + d : t0 + d * cumulative;
    try {
      if (end > now()) sg4::this_actor::sleep_until(end);
    } catch (...) {
      resumed();  // killed while sleeping (the simulation ended): the math refers to this stack, so it ends first
      throw;
    }
    resumed();
    if (pool != nullptr && i == 0)
      if (std::exception_ptr error = pool->take_error(rank_)) std::rethrow_exception(error);
    if (after_part) after_part(i);
  }
  return d;
}

}  // namespace quorum
