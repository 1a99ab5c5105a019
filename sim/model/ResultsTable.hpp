#pragma once
// The table `quorum run` prints after a run, on either backend (one row per algorithm: steps/s, aggregate steps/s,
// the run's time, final test accuracy or loss, mean wait, wall time), and the same rows as comparison.csv. The time
// column says whether it was simulated or measured, from the summaries' backend.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace quorum {

std::string format_results_table(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries);
std::string format_results_csv(const std::vector<std::string>& labels, const std::vector<nlohmann::json>& summaries);

}  // namespace quorum
