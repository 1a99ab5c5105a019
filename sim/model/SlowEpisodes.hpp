#pragma once
// Slowdowns that persist: every block of ranks alternates between normal and slow episodes, a two-state Markov chain
// in steps. Episode lengths are geometric (the memoryless law in discrete time: a slow episode ends after each step
// with probability 1 / mean_slow_steps), so the configured means are exactly the mean lengths. The chain starts in
// its stationary law: slow with probability mean_slow / (mean_slow + mean_normal), and by memorylessness the first
// episode's remaining length is geometric with the same mean, so that fraction of blocks is slow at every step.
//
// Each block's episodes come from its own seeded stream (seed, StragglerEpisodes, block), so at(block, step) is a
// pure function of (seed, block, step): the simulator and every MPI rank see the same episodes without talking.
// Episodes are generated on demand up to the latest step asked for and kept (one integer per episode); a step
// already covered is a binary search, so steps may be asked in any order. Thread-safe: a mutex guards what is kept
// (the simulator asks from one OS thread, the MPI backend from each rank's thread); copies share it.
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/random/SeedStream.hpp"

namespace quorum {

class SlowEpisodes {
 public:
  struct Episode {
    bool slow = false;
    std::int64_t start = 0, end = 0;  // the episode covers steps start .. end - 1
  };

  // Means in steps, each >= 1; blocks: how many independent sequences (0 .. blocks - 1).
  SlowEpisodes(std::uint64_t seed, double mean_slow_steps, double mean_normal_steps, int blocks);
  // The episode of block at step (>= 0).
  Episode at(int block, std::int64_t step) const;

 private:
  struct Sequence {
    Rng rng;
    bool first_slow = false;
    std::vector<std::int64_t> bounds;  // bounds[i] .. bounds[i + 1] - 1: episode i; slow if first_slow != (i odd)
  };
  struct Kept {
    std::mutex mutex;
    std::vector<Sequence> blocks;
  };
  double mean_slow_, mean_normal_;
  std::shared_ptr<Kept> kept_;
};

// Trials up to and including the first success of Bernoulli(1 / mean) trials: values 1, 2, ... with mean `mean`
// (>= 1; mean 1 always gives 1). One uniform draw, inverted.
std::int64_t geometric_steps(Rng& rng, double mean);

}  // namespace quorum
