#pragma once
// Where a step's gradients come from: the model's layers in the order the backward pass produces their gradients,
// each with its parameter count and its share of the backward time. Overlapping algorithms (Allreduce-SGD with
// algorithm.overlap) charge the backward pass layer by layer and reduce a bucket as soon as its layers are done.
#include <cstdint>
#include <string>
#include <vector>

namespace quorum {

// The backward pass costs about twice the forward pass (one product for the gradient with respect to the
// activations and one for the gradient with respect to the weights, each as large as the forward product): the
// standard 2N forward / 4N backward FLOPs per parameter and sample of Kaplan et al., "Scaling Laws for Neural
// Language Models" (2020), sec. 2.1. So the backward pass takes 2/3 of a step.
inline constexpr double kBackwardFraction = 2.0 / 3.0;

struct GradientLayer {
  std::string name;
  std::int64_t parameters = 0;  // floats of this layer's gradient (0: time without a gradient of its own)
  double backward_share = 0;    // fraction of the backward pass spent on this layer (the table's shares sum to 1)
};

struct GradientLayout {
  double backward_fraction = kBackwardFraction;  // of a step's compute time
  std::vector<GradientLayer> layers;             // backward order; empty: one layer holding the whole model
};

}  // namespace quorum
