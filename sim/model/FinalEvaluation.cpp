#include "sim/model/FinalEvaluation.hpp"

#include <algorithm>

#include "kernels/optim/VectorOps.hpp"

namespace quorum {

namespace {

// mean_i |x_i - mean|^2 = sum_sq / count - |mean|^2, from the sums a snapshot keeps (in double; clamped at 0
// against rounding when all replicas agree).
double consensus_distance(const std::vector<double>& sum, double sum_sq, int count) {
  if (count == 0) return 0;
  double mean_sq = 0;
  for (double s : sum) mean_sq += (s / count) * (s / count);
  return std::max(0.0, sum_sq / count - mean_sq);
}

}  // namespace

FinalEvaluation evaluate_run(const MathSetup& math, const std::vector<std::span<const float>>& final_params,
                             const RunRecorder& recorder) {
  FinalEvaluation e;
  if (!math.enabled() || final_params.empty()) return e;
  e.enabled = true;
  e.proxy_model = math.model->name() + " on " + math.test->name();
  const Model& model = *math.model;
  const Dataset& test = *math.test;

  const std::vector<float> averaged = vec::mean(final_params);
  e.averaged = evaluate(model, averaged, test);
  e.rank0 = evaluate(model, final_params.front(), test);
  std::vector<float> initial(model.num_params());
  model.init(initial, math.seed);
  e.initial = evaluate(model, initial, test);

  {
    std::vector<double> sum(averaged.size(), 0.0);
    double sum_sq = 0;
    for (const auto& p : final_params)
      for (std::size_t i = 0; i < p.size(); ++i) {
        sum[i] += p[i];
        sum_sq += static_cast<double>(p[i]) * p[i];
      }
    e.final_consensus_distance = consensus_distance(sum, sum_sq, static_cast<int>(final_params.size()));
  }

  e.curve.push_back({-1, 0.0, e.initial.loss, e.initial.accuracy, 0.0});
  std::vector<float> mean;
  for (const auto& [step, snap] : recorder.snapshots()) {
    mean.resize(snap.sum.size());
    for (std::size_t i = 0; i < mean.size(); ++i) mean[i] = static_cast<float>(snap.sum[i] / snap.count);
    const Evaluation ev = evaluate(model, mean, test);
    e.curve.push_back({step, snap.time_s, ev.loss, ev.accuracy, consensus_distance(snap.sum, snap.sum_sq, snap.count)});
  }
  return e;
}

}  // namespace quorum
