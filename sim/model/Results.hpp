#pragma once
// Result files: summary.json (the run in numbers) and iterations.csv (one row per rank and step). Files are
// written atomically (temporary file, then rename), iterations.csv first and summary.json last, so a directory
// with a summary.json holds a complete run.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "algorithms/RankContext.hpp"
#include "kernels/models/Model.hpp"
#include "sim/model/RunRecorder.hpp"
#include "sim/model/Scenario.hpp"

namespace quorum {

// Evaluation of the model(s) at the end of a run, and of the averaged model over time.
struct EvaluationPoint {
  std::int64_t step = 0;  // after this step (-1: initial model)
  double time_s = 0;
  double test_loss = 0;
  std::optional<double> test_accuracy;
  // Mean squared distance of the ranks' models from their average at this step (0 when all replicas agree).
  std::optional<double> consensus_distance;
};
struct FinalEvaluation {
  bool enabled = false;
  std::string proxy_model;  // which model the convergence figures belong to
  Evaluation averaged, rank0, initial;
  double final_consensus_distance = 0;  // of the models the ranks ended with
  std::vector<EvaluationPoint> curve;
};

nlohmann::json make_summary(const Scenario& scenario, const RunRecorder& recorder, const FinalEvaluation& evaluation,
                            double sim_time_s, double wall_time_s, const std::string& backend);

// Writes content to path atomically.
void write_file_atomic(const std::string& path, const std::string& content);
void write_iterations_csv(const std::string& path, std::vector<StepRecord> steps);
void write_table_csv(const std::string& path, const RunRecorder::Table& table);
void write_results(const std::string& dir, const nlohmann::json& summary, const RunRecorder& recorder,
                   bool iterations_csv);

}  // namespace quorum
