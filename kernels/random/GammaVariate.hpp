#pragma once
// Gamma and Dirichlet draws from the project's seeded generator (our own sampling rather than <random>'s, so the
// draws are identical across standard libraries and on both backends).
#include <vector>

#include "kernels/random/SeedStream.hpp"

namespace quorum {

// log of a Gamma(shape, 1) draw, shape > 0 (Marsaglia and Tsang 2000; shape < 1 through Gamma(shape + 1) times
// U^(1/shape)). In logs because for small shapes the draw itself underflows to 0 (alpha = 0.01: U^100).
double log_gamma_variate(Rng& rng, double shape);

// One draw of Dir(alpha, ..., alpha) over n components, as logs of unnormalised weights (normalise with
// normalize_log_weights after masking any components out).
std::vector<double> log_dirichlet_weights(Rng& rng, double alpha, int n);

// exp(w - max w) / sum, over the finite entries; -inf entries get 0. All -inf gives all zeros.
std::vector<double> normalize_log_weights(const std::vector<double>& log_weights);

}  // namespace quorum
