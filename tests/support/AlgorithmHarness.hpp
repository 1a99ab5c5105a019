#pragma once
// Runs one algorithm of the catalog directly on simulated ranks (in a child process, like SimHarness), with a
// Trainer per rank whose parameters start different on every rank and, by default, with learning rate 0, so that
// only the averaging changes them: the way to check that averaging preserves the mean. Brings back each rank's
// initial and final parameters and what the algorithm reported (timeline spans, table rows, metric names).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "platforms/PlatformConfig.hpp"
#include "sim/model/StragglerModel.hpp"

namespace quorum::testing {

struct AlgorithmRun {
  std::string algorithm;
  nlohmann::json params = nlohmann::json::object();  // overrides of the algorithm's defaults
  PlatformConfig platform;
  std::int64_t iterations = 10;
  double compute_s = 0.01;          // constant step time
  StragglerSpec imbalance{};
  std::uint64_t seed = 1;
  bool math = true;                 // hyperplane proxy (dim 16), distinct initial parameters per rank
  double lr = 0.0;                  // 0: only the averaging changes the parameters
  double model_bytes = 4e6;
};

struct AlgorithmRunResult {
  bool ok = false;
  std::string error;
  double end_time = 0;
  std::vector<std::vector<float>> initial, final;  // per rank
  std::vector<nlohmann::json> spans;               // {rank, category, name, start, end}
  std::vector<nlohmann::json> rows;                // {table, row: {column: value}}
  std::vector<std::int64_t> steps;                 // steps recorded per rank
};

AlgorithmRunResult run_algorithm(const AlgorithmRun& run);

}  // namespace quorum::testing
