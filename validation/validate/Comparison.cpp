#include "validation/validate/Comparison.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace quorum::validation {

ValidationRow compare_summaries(const std::string& label, const nlohmann::json& measured,
                                const nlohmann::json& predicted) {
  ValidationRow r;
  r.algorithm = label;
  r.measured_steps_per_s = measured.at("throughput_steps_per_s").get<double>();
  r.predicted_steps_per_s = predicted.at("throughput_steps_per_s").get<double>();
  r.relative_error = r.measured_steps_per_s > 0
                         ? (r.predicted_steps_per_s - r.measured_steps_per_s) / r.measured_steps_per_s
                         : NAN;
  r.measured_mean_wait_s = measured.at("mean_wait_s").get<double>();
  r.predicted_mean_wait_s = predicted.at("mean_wait_s").get<double>();
  r.wait_error_s = r.predicted_mean_wait_s - r.measured_mean_wait_s;
  return r;
}

nlohmann::json row_json(const ValidationRow& r) {
  return {{"algorithm", r.algorithm},
          {"measured_steps_per_s", r.measured_steps_per_s},
          {"predicted_steps_per_s", r.predicted_steps_per_s},
          {"relative_error", std::isfinite(r.relative_error) ? nlohmann::json(r.relative_error) : nlohmann::json()},
          {"measured_mean_wait_s", r.measured_mean_wait_s},
          {"predicted_mean_wait_s", r.predicted_mean_wait_s},
          {"wait_error_s", r.wait_error_s}};
}

std::string format_validation_table(const std::vector<ValidationRow>& rows) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %12s %12s %9s %12s %12s %10s\n", "algorithm", "measured", "predicted",
                "error", "measured", "predicted", "wait");
  os << line;
  std::snprintf(line, sizeof line, "%-20s %12s %12s %9s %12s %12s %10s\n", "", "steps/s", "steps/s", "", "wait (s)",
                "wait (s)", "diff (s)");
  os << line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%-20s %12.4f %12.4f %+8.2f%% %12.4f %12.4f %+10.4f\n", r.algorithm.c_str(),
                  r.measured_steps_per_s, r.predicted_steps_per_s, 100.0 * r.relative_error, r.measured_mean_wait_s,
                  r.predicted_mean_wait_s, r.wait_error_s);
    os << line;
  }
  return os.str();
}

}  // namespace quorum::validation
