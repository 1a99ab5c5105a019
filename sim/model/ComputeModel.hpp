#pragma once
// The modelled duration of one local step of one rank: a draw from the workload's compute distribution plus the
// straggler model's delay. Pure function of (seed, rank, step): the simulator advances time by it, and the MPI
// backend sleeps it, so both see the same imbalance at the same steps.
#include <cstdint>

#include "sim/model/Distribution.hpp"
#include "sim/model/StragglerModel.hpp"

namespace quorum {

class ComputeModel {
 public:
  ComputeModel(Distribution compute, StragglerModel stragglers, std::uint64_t seed)
      : compute_(std::move(compute)), stragglers_(std::move(stragglers)), seed_(seed) {}

  double base(int rank, std::int64_t step) const {
    Rng rng(seed_, Stream::ComputeTime, static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(step));
    return compute_.sample(rng, rank, step);
  }
  double delay(int rank, std::int64_t step, double base_s) const { return stragglers_.delay(rank, step, base_s); }
  double duration(int rank, std::int64_t step) const {
    const double b = base(rank, step);
    return b + delay(rank, step, b);
  }
  const Distribution& compute() const { return compute_; }
  const StragglerModel& stragglers() const { return stragglers_; }

 private:
  Distribution compute_;
  StragglerModel stragglers_;
  std::uint64_t seed_;
};

}  // namespace quorum
