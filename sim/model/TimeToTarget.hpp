#pragma once
// Time to target: the first evaluation of the averaged model at which it reached math.target_accuracy (accuracy
// >= target) or math.target_loss (test loss <= target). Evaluations happen every math.eval_every steps and at the
// end, so the answer is exact to that resolution.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/model/Results.hpp"

namespace quorum {

struct TargetReached {
  std::optional<std::int64_t> steps;  // steps done at that evaluation (0: the initial model)
  std::optional<double> time_s;       // simulated (on MPI: measured) time the last rank got there
};

// evaluations: in the order they were taken (EvaluationPoint::step is the 0-based step after which it was taken,
// -1 for the initial model). Nothing set, or never reached: both empty.
TargetReached first_reaching(const std::vector<EvaluationPoint>& evaluations, std::optional<double> target_accuracy,
                             std::optional<double> target_loss);

}  // namespace quorum
