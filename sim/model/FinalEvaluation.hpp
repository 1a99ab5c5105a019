#pragma once
// Evaluates the models a run ended with (the average over ranks, and rank 0's) and the averaged model at each
// evaluation snapshot, on the proxy's test set.
#include <span>
#include <vector>

#include "kernels/MathSetup.hpp"
#include "sim/model/Results.hpp"
#include "sim/model/RunRecorder.hpp"

namespace quorum {

FinalEvaluation evaluate_run(const MathSetup& math, const std::vector<std::span<const float>>& final_params,
                             const RunRecorder& recorder);

}  // namespace quorum
