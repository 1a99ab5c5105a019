#include "sim/model/Ar1Slowdown.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace quorum {

Ar1Slowdown::Ar1Slowdown(std::uint64_t seed, double phi, double sigma, int blocks)
    : phi_(phi), sigma_(sigma), innovation_sd_(sigma * std::sqrt(1.0 - phi * phi)), kept_(std::make_shared<Kept>()) {
  for (int b = 0; b < blocks; ++b) {
    Rng rng(seed, Stream::StragglerEpisodes, static_cast<std::uint64_t>(b), 0);
    const double x0 = sigma_ * rng.normal();
    const State start{x0, rng};
    kept_->blocks.push_back(Process{{start}, start, 0});
  }
}

double Ar1Slowdown::advance(State& s) const {
  s.x = phi_ * s.x + innovation_sd_ * s.rng.normal();
  return s.x;
}

double Ar1Slowdown::log_factor(int block, std::int64_t step) const {
  if (block < 0 || static_cast<std::size_t>(block) >= kept_->blocks.size() || step < 0)
    throw std::out_of_range("Ar1Slowdown::log_factor: no block " + std::to_string(block) + " or step " +
                            std::to_string(step));
  std::lock_guard lock(kept_->mutex);
  Process& p = kept_->blocks[static_cast<std::size_t>(block)];
  if (step >= p.latest_step) {
    for (std::int64_t t = p.latest_step + 1; t <= step; ++t) {
      advance(p.latest);
      if (t % kCheckpointSteps == 0) p.checkpoints.push_back(p.latest);
    }
    p.latest_step = step;
    return p.latest.x;
  }
  // An earlier step: from the checkpoint at or before it (every checkpoint up to latest_step is kept).
  const std::int64_t from = step / kCheckpointSteps;
  State s = p.checkpoints[static_cast<std::size_t>(from)];
  for (std::int64_t t = from * kCheckpointSteps + 1; t <= step; ++t) advance(s);
  return s.x;
}

}  // namespace quorum
