#include "validation/validate/Comparison.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace quorum::validation {

namespace {

double relative(double predicted, double measured) { return measured > 0 ? (predicted - measured) / measured : NAN; }

// Summaries written before the aggregate rate existed have only the throughput, which it equals for synchronous runs.
double aggregate_of(const nlohmann::json& summary) {
  const auto it = summary.find("aggregate_steps_per_s");
  return it != summary.end() && it->is_number() ? it->get<double>()
                                                : summary.at("throughput_steps_per_s").get<double>();
}

nlohmann::json finite_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

}  // namespace

ValidationRow compare_summaries(const std::string& label, const nlohmann::json& measured,
                                const nlohmann::json& predicted) {
  ValidationRow r;
  r.algorithm = label;
  r.measured_steps_per_s = measured.at("throughput_steps_per_s").get<double>();
  r.predicted_steps_per_s = predicted.at("throughput_steps_per_s").get<double>();
  r.relative_error = relative(r.predicted_steps_per_s, r.measured_steps_per_s);
  r.measured_aggregate_steps_per_s = aggregate_of(measured);
  r.predicted_aggregate_steps_per_s = aggregate_of(predicted);
  r.aggregate_relative_error = relative(r.predicted_aggregate_steps_per_s, r.measured_aggregate_steps_per_s);
  r.measured_mean_wait_s = measured.at("mean_wait_s").get<double>();
  r.predicted_mean_wait_s = predicted.at("mean_wait_s").get<double>();
  r.wait_error_s = r.predicted_mean_wait_s - r.measured_mean_wait_s;
  return r;
}

nlohmann::json row_json(const ValidationRow& r) {
  return {{"algorithm", r.algorithm},
          {"measured_steps_per_s", r.measured_steps_per_s},
          {"predicted_steps_per_s", r.predicted_steps_per_s},
          {"relative_error", finite_or_null(r.relative_error)},
          {"measured_mean_wait_s", r.measured_mean_wait_s},
          {"predicted_mean_wait_s", r.predicted_mean_wait_s},
          {"wait_error_s", r.wait_error_s},
          {"measured_aggregate_steps_per_s", r.measured_aggregate_steps_per_s},
          {"predicted_aggregate_steps_per_s", r.predicted_aggregate_steps_per_s},
          {"aggregate_relative_error", finite_or_null(r.aggregate_relative_error)}};
}

std::string format_validation_table(const std::vector<ValidationRow>& rows) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %12s %12s %9s %12s %12s %10s %10s\n", "algorithm", "measured", "predicted",
                "error", "measured", "predicted", "wait", "aggregate");
  os << line;
  std::snprintf(line, sizeof line, "%-20s %12s %12s %9s %12s %12s %10s %10s\n", "", "steps/s", "steps/s", "",
                "wait (s)", "wait (s)", "diff (s)", "error");
  os << line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%-20s %12.4f %12.4f %+8.2f%% %12.4f %12.4f %+10.4f %+9.2f%%\n",
                  r.algorithm.c_str(), r.measured_steps_per_s, r.predicted_steps_per_s, 100.0 * r.relative_error,
                  r.measured_mean_wait_s, r.predicted_mean_wait_s, r.wait_error_s, 100.0 * r.aggregate_relative_error);
    os << line;
  }
  return os.str();
}

}  // namespace quorum::validation
