#include "sim/model/FinalEvaluation.hpp"

#include "kernels/optim/VectorOps.hpp"

namespace quorum {

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

  e.curve.push_back({-1, 0.0, e.initial.loss, e.initial.accuracy});
  std::vector<float> mean;
  for (const auto& [step, snap] : recorder.snapshots()) {
    mean.resize(snap.sum.size());
    for (std::size_t i = 0; i < mean.size(); ++i) mean[i] = static_cast<float>(snap.sum[i] / snap.count);
    const Evaluation ev = evaluate(model, mean, test);
    e.curve.push_back({step, snap.time_s, ev.loss, ev.accuracy});
  }
  return e;
}

}  // namespace quorum
