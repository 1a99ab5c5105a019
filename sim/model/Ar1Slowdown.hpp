#pragma once
// Speeds that drift: the log of every block's step-time factor is a stationary Gaussian AR(1) process,
//   x(0) ~ N(0, sigma^2),  x(t) = phi x(t - 1) + sigma sqrt(1 - phi^2) e(t),  e(t) ~ N(0, 1),
// so x(t) ~ N(0, sigma^2) at every step and corr(x(t), x(t + k)) = phi^k: a block that is slow now stays slow for
// about 1 / (1 - phi) steps. The block's steps take exp(x(t)) times their undisturbed time (median 1, so it runs
// faster than undisturbed about half the time).
//
// Each block's process comes from its own seeded stream (seed, StragglerEpisodes, block), so log_factor(block,
// step) is a pure function of (seed, block, step). The recursion is run forward on demand; the latest step and a
// checkpoint every kCheckpointSteps steps are kept, so steps asked in increasing order cost one update each and any
// other step is recomputed from the checkpoint before it, by the same operations, so to the same bits. Thread-safe:
// a mutex guards what is kept (the simulator asks from one OS thread, the MPI backend from each rank's thread);
// copies share it.
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/random/SeedStream.hpp"

namespace quorum {

class Ar1Slowdown {
 public:
  static constexpr std::int64_t kCheckpointSteps = 256;

  // phi in [0, 1), sigma >= 0: the stationary sd of x; blocks: how many independent processes (0 .. blocks - 1).
  Ar1Slowdown(std::uint64_t seed, double phi, double sigma, int blocks);
  // x(step) of block (step >= 0): the log of its step-time factor.
  double log_factor(int block, std::int64_t step) const;

 private:
  struct State {
    double x;
    Rng rng;  // the stream after drawing x's innovation
  };
  struct Process {
    std::vector<State> checkpoints;  // checkpoints[i]: step i * kCheckpointSteps
    State latest;
    std::int64_t latest_step = 0;
  };
  struct Kept {
    std::mutex mutex;
    std::vector<Process> blocks;
  };
  double advance(State& s) const;

  double phi_, sigma_, innovation_sd_;
  std::shared_ptr<Kept> kept_;
};

}  // namespace quorum
