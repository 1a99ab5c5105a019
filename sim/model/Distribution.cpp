#include "sim/model/Distribution.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "sim/model/Fields.hpp"

namespace quorum {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_quantile(double p) {
  // Acklam's rational approximation, refined by one Halley step (relative error ~1e-15).
  if (p <= 0) return -std::numeric_limits<double>::infinity();
  if (p >= 1) return std::numeric_limits<double>::infinity();
  static const std::array<double, 6> a = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const std::array<double, 5> b = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                          6.680131188771972e+01,  -1.328068155288572e+01};
  static const std::array<double, 6> c = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const std::array<double, 4> d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                          3.754408661907416e+00};
  const double plow = 0.02425;
  double x;
  if (p < plow) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - plow) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = normal_cdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

namespace {

// Partial moment E[Y^k; a < ln Y < b] for ln Y ~ N(mu, sigma), as a fraction of the unconditional moment.
double lognormal_partial(double mu, double sigma, double k, double log_lo, double log_hi) {
  const double s2 = sigma * sigma;
  const double upper = std::isfinite(log_hi) ? normal_cdf((log_hi - mu - k * s2) / sigma) : 1.0;
  const double lower = std::isfinite(log_lo) ? normal_cdf((log_lo - mu - k * s2) / sigma) : 0.0;
  return std::exp(k * mu + k * k * s2 / 2) * (upper - lower);
}

// Bounds of the lognormal part (X - shift) in log space.
void log_bounds(double shift, double lo, double hi, double& log_lo, double& log_hi) {
  log_lo = lo - shift > 0 ? std::log(lo - shift) : -std::numeric_limits<double>::infinity();
  log_hi = std::isfinite(hi) ? std::log(std::max(hi - shift, 1e-300)) : std::numeric_limits<double>::infinity();
}

}  // namespace

void truncated_lognormal_moments(double mu, double sigma, double shift, double lo, double hi, double& mean,
                                 double& sd) {
  double log_lo, log_hi;
  log_bounds(shift, lo, hi, log_lo, log_hi);
  const double mass = lognormal_partial(mu, sigma, 0, log_lo, log_hi);
  const double m1 = lognormal_partial(mu, sigma, 1, log_lo, log_hi) / mass;
  const double m2 = lognormal_partial(mu, sigma, 2, log_lo, log_hi) / mass;
  mean = shift + m1;
  sd = std::sqrt(std::max(m2 - m1 * m1, 0.0));
}

LognormalFit fit_truncated_lognormal(double mean_s, double sd_s, double min_s, double max_s) {
  auto fit_with_shift = [&](double shift) {
    // Nelder-Mead on (mu, log sigma) minimising the squared relative errors of mean and sd.
    auto cost = [&](const std::array<double, 2>& x) {
      double m, s;
      truncated_lognormal_moments(x[0], std::exp(x[1]), shift, min_s, max_s, m, s);
      if (!std::isfinite(m) || !std::isfinite(s)) return 1e30;
      const double em = (m - mean_s) / mean_s, es = (s - sd_s) / sd_s;
      return em * em + es * es;
    };
    const double excess = std::max(mean_s - shift, 1e-9);
    const double s2 = std::log(1 + (sd_s * sd_s) / (excess * excess));
    std::array<std::array<double, 2>, 3> simplex = {
        {{std::log(excess) - s2 / 2, 0.5 * std::log(s2)}, {0, 0}, {0, 0}}};
    simplex[1] = {simplex[0][0] + 0.3, simplex[0][1]};
    simplex[2] = {simplex[0][0], simplex[0][1] + 0.3};
    std::array<double, 3> f{};
    for (int i = 0; i < 3; ++i) f[i] = cost(simplex[i]);
    for (int iter = 0; iter < 2000; ++iter) {
      std::array<int, 3> order = {0, 1, 2};
      std::sort(order.begin(), order.end(), [&](int a, int b) { return f[a] < f[b]; });
      const int best = order[0], mid = order[1], worst = order[2];
      if (f[best] < 1e-14) break;
      const std::array<double, 2> centroid = {(simplex[best][0] + simplex[mid][0]) / 2,
                                              (simplex[best][1] + simplex[mid][1]) / 2};
      auto along = [&](double t) {
        return std::array<double, 2>{centroid[0] + t * (simplex[worst][0] - centroid[0]),
                                     centroid[1] + t * (simplex[worst][1] - centroid[1])};
      };
      const auto reflected = along(-1);
      const double fr = cost(reflected);
      if (fr < f[best]) {
        const auto expanded = along(-2);
        const double fe = cost(expanded);
        if (fe < fr) { simplex[worst] = expanded; f[worst] = fe; }
        else { simplex[worst] = reflected; f[worst] = fr; }
      } else if (fr < f[mid]) {
        simplex[worst] = reflected; f[worst] = fr;
      } else {
        const auto contracted = along(0.5);
        const double fc = cost(contracted);
        if (fc < f[worst]) { simplex[worst] = contracted; f[worst] = fc; }
        else {
          for (int i : {mid, worst}) {
            simplex[i] = {(simplex[i][0] + simplex[best][0]) / 2, (simplex[i][1] + simplex[best][1]) / 2};
            f[i] = cost(simplex[i]);
          }
        }
      }
    }
    const int best = static_cast<int>(std::min_element(f.begin(), f.end()) - f.begin());
    LognormalFit fit{simplex[best][0], std::exp(simplex[best][1]), shift, min_s, max_s, 0, 0};
    truncated_lognormal_moments(fit.mu, fit.sigma, shift, min_s, max_s, fit.fitted_mean, fit.fitted_sd);
    return std::make_pair(fit, f[best]);
  };
  const auto unshifted = fit_with_shift(0.0);
  const auto shifted = fit_with_shift(min_s);
  return unshifted.second <= shifted.second ? unshifted.first : shifted.first;
}

double Distribution::sample(Rng& rng, int rank, std::int64_t step) const {
  switch (kind) {
    case Kind::Constant: return value;
    case Kind::Uniform: return rng.uniform(lo, hi);
    case Kind::Normal: {
      for (int i = 0; i < 1000; ++i) {
        const double x = rng.normal(mean_s, sd_s);
        if (x >= 0) return x;
      }
      return 0.0;
    }
    case Kind::Exponential: {
      double u = rng.uniform();
      while (u <= 0) u = rng.uniform();
      return -mean_s * std::log(u);
    }
    case Kind::Lognormal: {
      // Inverse-CDF sampling inside the truncation bounds: one uniform per draw, whatever the bounds.
      double log_lo, log_hi;
      log_bounds(shift_s, lo, hi, log_lo, log_hi);
      const double p_lo = std::isfinite(log_lo) ? normal_cdf((log_lo - mu) / sigma) : 0.0;
      const double p_hi = std::isfinite(log_hi) ? normal_cdf((log_hi - mu) / sigma) : 1.0;
      const double p = p_lo + (p_hi - p_lo) * rng.uniform();
      const double x = shift_s + std::exp(mu + sigma * normal_quantile(std::clamp(p, 1e-300, 1 - 1e-16)));
      return std::clamp(x, std::max(lo, shift_s), std::isfinite(hi) ? hi : x);
    }
    case Kind::Empirical: {
      const auto& values = per_rank ? trace->sequence(static_cast<std::size_t>(rank) % trace->sequences())
                                    : trace->all();
      return values[static_cast<std::size_t>(rng.below(values.size()))];
    }
    case Kind::Replay: {
      const auto r = static_cast<std::uint64_t>(rank), s = static_cast<std::uint64_t>(step);
      if (trace->has_ranks()) {
        const auto& values = trace->sequence(r % trace->sequences());
        return values[s % values.size()];
      }
      const auto& values = trace->all();
      const std::uint64_t n = values.size(), p = static_cast<std::uint64_t>(std::max(world_size, 1));
      const std::uint64_t start = (r % p) * n / p;
      return values[(start + s % n) % n];
    }
  }
  return 0.0;
}

double Distribution::mean() const {
  switch (kind) {
    case Kind::Constant: return value;
    case Kind::Uniform: return (lo + hi) / 2;
    case Kind::Normal: return mean_s;
    case Kind::Exponential: return mean_s;
    case Kind::Lognormal: {
      double m, s;
      truncated_lognormal_moments(mu, sigma, shift_s, lo, hi, m, s);
      return m;
    }
    case Kind::Empirical:
    case Kind::Replay: return trace->mean();
  }
  return 0.0;
}

double Distribution::sd() const {
  switch (kind) {
    case Kind::Constant: return 0;
    case Kind::Uniform: return (hi - lo) / std::sqrt(12.0);
    case Kind::Normal: return sd_s;
    case Kind::Exponential: return mean_s;
    case Kind::Lognormal: {
      double m, s;
      truncated_lognormal_moments(mu, sigma, shift_s, lo, hi, m, s);
      return s;
    }
    case Kind::Empirical:
    case Kind::Replay: return trace->sd();
  }
  return 0.0;
}

Distribution parse_distribution(Fields& f, const std::string& base_dir, int world_size) {
  Distribution d;
  d.world_size = std::max(world_size, 1);
  const std::string kind = f.string("kind", std::nullopt,
                                    {"constant", "uniform", "normal", "exponential", "lognormal", "truncated_lognormal",
                                     "empirical", "replay", "trace"});
  auto resolve_path = [&base_dir](const std::string& file) {
    std::filesystem::path p(file);
    if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
    return p.string();
  };
  const double inf = std::numeric_limits<double>::infinity();
  if (kind == "constant") {
    d.kind = Distribution::Kind::Constant;
    d.value = f.number("seconds", std::nullopt, 0.0);
  } else if (kind == "uniform") {
    d.kind = Distribution::Kind::Uniform;
    d.lo = f.number("min_s", std::nullopt, 0.0);
    d.hi = f.number("max_s", std::nullopt, d.lo);
  } else if (kind == "normal") {
    d.kind = Distribution::Kind::Normal;
    d.mean_s = f.number("mean_s", std::nullopt, 0.0);
    d.sd_s = f.number("sd_s", std::nullopt, 0.0);
  } else if (kind == "exponential") {
    d.kind = Distribution::Kind::Exponential;
    d.mean_s = f.positive("mean_s", std::nullopt);
  } else if (kind == "lognormal") {
    d.kind = Distribution::Kind::Lognormal;
    if (f.has("median_s")) d.mu = std::log(f.positive("median_s", std::nullopt));
    else d.mu = f.number("mu", std::nullopt);
    d.sigma = f.positive("sigma", std::nullopt);
    d.shift_s = f.number("shift_s", 0.0, 0.0);
    d.lo = f.number("min_s", 0.0, 0.0);
    d.hi = f.has("max_s") ? f.number("max_s", std::nullopt, d.lo) : inf;
    if (!f.has("max_s")) f.resolved().erase("max_s");
  } else if (kind == "truncated_lognormal") {
    const double mean = f.positive("mean_s", std::nullopt);
    const double sd = f.positive("sd_s", std::nullopt);
    const double min = f.number("min_s", std::nullopt, 0.0, mean);
    const double max = f.number("max_s", std::nullopt, mean);
    const LognormalFit fit = fit_truncated_lognormal(mean, sd, min, max);
    d.kind = Distribution::Kind::Lognormal;
    d.mu = fit.mu;
    d.sigma = fit.sigma;
    d.shift_s = fit.shift_s;
    d.lo = min;
    d.hi = max;
    f.set_resolved("fit", {{"mu", fit.mu}, {"sigma", fit.sigma}, {"shift_s", fit.shift_s},
                           {"fitted_mean_s", fit.fitted_mean}, {"fitted_sd_s", fit.fitted_sd}});
  } else {
    // Measured durations: empirical resamples them, replay plays them back in order per rank.
    d.kind = kind == "empirical" ? Distribution::Kind::Empirical : Distribution::Kind::Replay;
    if (kind == "trace") f.set_resolved("kind", "replay");  // replay's former name
    // file: one file, or a list of files, one per rank (Trace.hpp).
    const bool file_list = f.raw("file").is_array();
    std::vector<std::string> files;
    if (file_list) {
      f.mark_used("file");
      const nlohmann::json& list = f.raw("file");
      if (list.empty()) f.fail("file", "must name at least one file");
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string())
          f.fail("file[" + std::to_string(i) + "]", "must be a string, got " + describe_json(list[i]));
        files.push_back(resolve_path(list[i].get<std::string>()));
      }
    } else {
      files.push_back(resolve_path(f.string("file", std::nullopt)));
    }
    const std::string column = f.string("column", "");
    if (d.kind == Distribution::Kind::Empirical) d.per_rank = f.boolean("per_rank", false);
    try {
      d.trace = std::make_shared<DurationTrace>(read_duration_traces(files, column));
    } catch (const TraceError& e) {
      f.fail(file_list ? "file[" + std::to_string(e.file_index()) + "]" : "file", e.what());
    }
    f.set_resolved("file", file_list ? nlohmann::json(files) : nlohmann::json(files.front()));
    f.set_resolved("measured", {{"durations", d.trace->size()},
                                {"ranks", d.trace->has_ranks() ? nlohmann::json(d.trace->sequences()) : nlohmann::json()},
                                {"mean_s", d.trace->mean()},
                                {"sd_s", d.trace->sd()}});
  }
  f.finish();
  return d;
}

}  // namespace quorum
