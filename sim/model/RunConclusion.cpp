#include "sim/model/RunConclusion.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "sim/model/FinalEvaluation.hpp"
#include "sim/model/Results.hpp"

namespace quorum {

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
  return make_summary(scenario, recorder, evaluation, end_s, wall_s, backend);
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
