#pragma once
// Gradient buckets for backward-pass overlap: consecutive layers (in backward order) whose gradients are reduced by
// one allreduce, as PyTorch DDP and Horovod's tensor fusion group them.
#include <cstddef>
#include <vector>

#include "algorithms/GradientLayout.hpp"

namespace quorum {

struct GradientBucket {
  std::size_t first_layer = 0, last_layer = 0;  // layers [first, last] of the layout, in backward order
  double logical_bytes = 0;                     // the bucket's real size: its layers' parameters x 4 bytes
  double backward_share = 0;                    // of the backward pass, summed over its layers
  std::size_t begin = 0, end = 0;               // the real values of the proxy gradient that stand for it
};

// DDP's rule: layers in backward order fill a bucket until it holds at least bucket_bytes; the last bucket takes
// what is left. model_bytes is split over the layers in proportion to their parameters (it equals their sum x 4
// when the layout belongs to the profile). real_values (the proxy gradient's length) is cut in proportion to the
// buckets' bytes, so every real value belongs to exactly one bucket. An empty layout is one layer: one bucket.
std::vector<GradientBucket> make_gradient_buckets(const GradientLayout& layout, double model_bytes,
                                                  double bucket_bytes, std::size_t real_values);

// The parts of a step's compute: the forward pass, then the backward pass of each bucket in turn (they sum to 1).
std::vector<double> compute_parts(const GradientLayout& layout, const std::vector<GradientBucket>& buckets);

}  // namespace quorum
