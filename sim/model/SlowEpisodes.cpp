#include "sim/model/SlowEpisodes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace quorum {

std::int64_t geometric_steps(Rng& rng, double mean) {
  if (mean <= 1.0) return 1;
  // P(result > k) = P(1 - u <= (1 - p)^k) = (1 - p)^k with p = 1 / mean; 1 - u lies in (0, 1], so log is finite.
  const double u = 1.0 - rng.uniform();
  return 1 + static_cast<std::int64_t>(std::floor(std::log(u) / std::log1p(-1.0 / mean)));
}

SlowEpisodes::SlowEpisodes(std::uint64_t seed, double mean_slow_steps, double mean_normal_steps, int blocks)
    : mean_slow_(mean_slow_steps), mean_normal_(mean_normal_steps), kept_(std::make_shared<Kept>()) {
  kept_->blocks.reserve(static_cast<std::size_t>(std::max(blocks, 0)));
  for (int b = 0; b < blocks; ++b) {
    Sequence s{Rng(seed, Stream::StragglerEpisodes, static_cast<std::uint64_t>(b), 0), false, {0}};
    s.first_slow = s.rng.uniform() < mean_slow_ / (mean_slow_ + mean_normal_);
    s.bounds.push_back(geometric_steps(s.rng, s.first_slow ? mean_slow_ : mean_normal_));
    kept_->blocks.push_back(std::move(s));
  }
}

SlowEpisodes::Episode SlowEpisodes::at(int block, std::int64_t step) const {
  if (block < 0 || static_cast<std::size_t>(block) >= kept_->blocks.size() || step < 0)
    throw std::out_of_range("SlowEpisodes::at: no block " + std::to_string(block) + " or step " +
                            std::to_string(step));
  std::lock_guard lock(kept_->mutex);
  Sequence& s = kept_->blocks[static_cast<std::size_t>(block)];
  while (s.bounds.back() <= step) {
    const bool slow = s.first_slow != ((s.bounds.size() - 1) % 2 == 1);
    s.bounds.push_back(s.bounds.back() + geometric_steps(s.rng, slow ? mean_slow_ : mean_normal_));
  }
  const auto next = std::upper_bound(s.bounds.begin(), s.bounds.end(), step);
  const auto i = static_cast<std::size_t>(next - s.bounds.begin()) - 1;
  return {s.first_slow != (i % 2 == 1), s.bounds[i], *next};
}

}  // namespace quorum
