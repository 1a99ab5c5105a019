#include "sim/model/TimeToTarget.hpp"

namespace quorum {

TargetReached first_reaching(const std::vector<EvaluationPoint>& evaluations, std::optional<double> target_accuracy,
                             std::optional<double> target_loss) {
  for (const auto& e : evaluations) {
    const bool reached = (target_accuracy && e.test_accuracy && *e.test_accuracy >= *target_accuracy) ||
                         (target_loss && e.test_loss <= *target_loss);
    if (reached) return {e.step + 1, e.time_s};
  }
  return {};
}

}  // namespace quorum
