#include "algorithms/sgd/GradientBuckets.hpp"

#include <cmath>

namespace quorum {

std::vector<GradientBucket> make_gradient_buckets(const GradientLayout& layout, double model_bytes,
                                                  double bucket_bytes, std::size_t real_values) {
  std::vector<GradientLayer> layers = layout.layers;
  if (layers.empty()) layers.push_back({"model", static_cast<std::int64_t>(std::llround(model_bytes / 4)), 1.0});
  double total_parameters = 0;
  for (const auto& l : layers) total_parameters += static_cast<double>(l.parameters);
  const double bytes_per_parameter = total_parameters > 0 ? model_bytes / total_parameters : 0;

  std::vector<GradientBucket> buckets;
  GradientBucket open;
  bool has_open = false;
  double parameters_before = 0, parameters_in = 0;
  auto close = [&](std::size_t last) {
    open.last_layer = last;
    open.logical_bytes = parameters_in * bytes_per_parameter;
    // Cumulative cuts, so the real values tile the vector exactly whatever the rounding.
    const double share_end = total_parameters > 0 ? (parameters_before + parameters_in) / total_parameters : 1;
    open.end = static_cast<std::size_t>(std::llround(share_end * static_cast<double>(real_values)));
    buckets.push_back(open);
    parameters_before += parameters_in;
    parameters_in = 0;
    has_open = false;
  };
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (!has_open) {
      open = GradientBucket{};
      open.first_layer = i;
      open.begin = buckets.empty() ? 0 : buckets.back().end;
      has_open = true;
    }
    parameters_in += static_cast<double>(layers[i].parameters);
    open.backward_share += layers[i].backward_share;
    if (parameters_in * bytes_per_parameter >= bucket_bytes) close(i);
  }
  if (has_open) close(layers.size() - 1);
  buckets.back().end = real_values;
  return buckets;
}

std::vector<double> compute_parts(const GradientLayout& layout, const std::vector<GradientBucket>& buckets) {
  std::vector<double> parts{1.0 - layout.backward_fraction};
  for (const auto& b : buckets) parts.push_back(layout.backward_fraction * b.backward_share);
  return parts;
}

}  // namespace quorum
