#pragma once
// The comparison quorum validate reports: per algorithm, measured (MPI) against predicted (simulated on the
// calibrated platform) throughput, aggregate rate and mean wait, from the two runs' summary.json.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace quorum::validation {

struct ValidationRow {
  std::string algorithm;  // the variant's label
  double measured_steps_per_s = 0, predicted_steps_per_s = 0;
  double relative_error = 0;  // (predicted - measured) / measured
  double measured_mean_wait_s = 0, predicted_mean_wait_s = 0;
  double wait_error_s = 0;    // predicted - measured
  // The aggregate rate (summary.json's aggregate_steps_per_s: steps per second per training rank while every rank
  // still runs). For synchronous algorithms it is the throughput; for asynchronous ones with a slow worker the
  // throughput is the slow rank's pace (its own sleeps), and this is the rate of the others, which the prediction
  // must also get right.
  double measured_aggregate_steps_per_s = 0, predicted_aggregate_steps_per_s = 0;
  double aggregate_relative_error = 0;
};

ValidationRow compare_summaries(const std::string& label, const nlohmann::json& measured,
                                const nlohmann::json& predicted);
nlohmann::json row_json(const ValidationRow& row);
// The printed table.
std::string format_validation_table(const std::vector<ValidationRow>& rows);

}  // namespace quorum::validation
