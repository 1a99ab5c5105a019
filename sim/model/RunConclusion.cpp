#include "sim/model/RunConclusion.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "sim/model/FinalEvaluation.hpp"
#include "sim/model/Results.hpp"

namespace quorum {

namespace {

// The training set's partition among the ranks: its kind and every rank's samples per label (null without labels).
nlohmann::json partition_summary(const MathSetup& math, int ranks) {
  if (!math.enabled()) return nullptr;
  const auto labels = math.train->labels();
  const int classes = math.train->classes();
  return {{"kind", math.config.partition.kind},
          {"label_histogram", classes > 0 && !labels.empty()
                                  ? nlohmann::json(label_histogram(*math.partition(ranks), labels, classes))
                                  : nlohmann::json(nullptr)}};
}

}  // namespace

nlohmann::json conclude_run(const Scenario& scenario, const RunRecorder& recorder, const MathSetup& math,
                            const std::vector<std::span<const float>>& final_params,
                            std::chrono::steady_clock::time_point wall_start, const std::string& backend) {
  const auto unfinished = recorder.unfinished_ranks();
  if (!unfinished.empty()) {
    std::ostringstream os;
    os << "algorithm '" << scenario.algorithm << "' ended " << unfinished.size()
       << " ranks before their last step (rank: last step):";
    for (std::size_t i = 0; i < std::min<std::size_t>(unfinished.size(), 8); ++i)
      os << " " << unfinished[i] << ": " << recorder.last_step_of(unfinished[i]);
    throw IncompleteRun(os.str());
  }
  double end_s = 0;
  for (const auto& s : recorder.steps()) end_s = std::max(end_s, s.start_s + s.compute_s + s.comm_s);
  const FinalEvaluation evaluation = evaluate_run(math, final_params, recorder);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  nlohmann::json summary = make_summary(scenario, recorder, evaluation, end_s, wall_s, backend);
  summary["partition"] = partition_summary(math, scenario.ranks);
  return summary;
}

void write_run_directory(const std::string& dir, const Scenario& scenario, const nlohmann::json& summary,
                         const RunRecorder& recorder, const std::vector<std::vector<float>>& final_params) {
  if (scenario.write_final_params) {
    std::filesystem::create_directories(dir);
    write_final_params(dir + "/final_params.json", final_params);
  }
  write_results(dir, summary, recorder, scenario.write_iterations_csv);
}

}  // namespace quorum
