#include "kernels/random/GammaVariate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace quorum {

double log_gamma_variate(Rng& rng, double shape) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a); 1 - uniform() lies in (0, 1], so the log is finite.
    const double u = 1.0 - rng.uniform();
    return log_gamma_variate(rng, shape + 1.0) + std::log(u) / shape;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = rng.normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = 1.0 - rng.uniform();
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return std::log(d) + std::log(v);
  }
}

std::vector<double> log_dirichlet_weights(Rng& rng, double alpha, int n) {
  std::vector<double> w(static_cast<std::size_t>(std::max(n, 0)));
  for (auto& x : w) x = log_gamma_variate(rng, alpha);
  return w;
}

std::vector<double> normalize_log_weights(const std::vector<double>& log_weights) {
  std::vector<double> p(log_weights.size(), 0.0);
  double top = -std::numeric_limits<double>::infinity();
  for (double w : log_weights) top = std::max(top, w);
  if (!std::isfinite(top)) return p;
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    p[i] = std::isfinite(log_weights[i]) ? std::exp(log_weights[i] - top) : 0.0;
    sum += p[i];
  }
  for (auto& x : p) x /= sum;
  return p;
}

}  // namespace quorum
