// Time to target read from a hand-made sequence of evaluations of the averaged model.
#include "sim/model/TimeToTarget.hpp"

#include <gtest/gtest.h>

namespace quorum {

namespace {
EvaluationPoint point(std::int64_t step, double time_s, double loss, std::optional<double> accuracy) {
  return {step, time_s, loss, accuracy, std::nullopt};
}
}  // namespace

TEST(TimeToTarget, FirstEvaluationAtOrPastTheTarget) {
  // initial model, then after steps 10, 20, 30 (0-based 9, 19, 29), then the final models.
  const std::vector<EvaluationPoint> curve = {point(-1, 0.0, 2.3, 0.10), point(9, 1.5, 0.9, 0.70),
                                              point(19, 3.0, 0.6, 0.80), point(29, 4.5, 0.65, 0.79),
                                              point(29, 4.6, 0.5, 0.85)};
  TargetReached r = first_reaching(curve, 0.8, std::nullopt);
  EXPECT_EQ(r.steps, 20);
  EXPECT_EQ(r.time_s, 3.0);
  r = first_reaching(curve, 0.7, std::nullopt);  // reached exactly counts
  EXPECT_EQ(r.steps, 10);
  r = first_reaching(curve, 0.85, std::nullopt);  // only the final evaluation gets there
  EXPECT_EQ(r.steps, 30);
  EXPECT_EQ(r.time_s, 4.6);
  r = first_reaching(curve, 0.9, std::nullopt);
  EXPECT_FALSE(r.steps);
  EXPECT_FALSE(r.time_s);
  r = first_reaching(curve, std::nullopt, 0.6);
  EXPECT_EQ(r.steps, 20);
  r = first_reaching(curve, std::nullopt, 5.0);  // the initial model already does
  EXPECT_EQ(r.steps, 0);
  EXPECT_EQ(r.time_s, 0.0);
  EXPECT_FALSE(first_reaching(curve, std::nullopt, std::nullopt).steps);
}

TEST(TimeToTarget, RegressionHasNoAccuracyToReach) {
  const std::vector<EvaluationPoint> curve = {point(-1, 0.0, 10.0, std::nullopt), point(4, 1.0, 1.0, std::nullopt)};
  EXPECT_FALSE(first_reaching(curve, 0.5, std::nullopt).steps);
  EXPECT_EQ(first_reaching(curve, std::nullopt, 1.0).steps, 5);
}

}  // namespace quorum
