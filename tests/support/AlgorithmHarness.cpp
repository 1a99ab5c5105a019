#include "tests/support/AlgorithmHarness.hpp"

#include <cmath>

#include "algorithms/Algorithm.hpp"
#include "kernels/Trainer.hpp"
#include "tests/support/SimHarness.hpp"

namespace quorum::testing {

namespace {

class RecordingObserver final : public StepObserver {
 public:
  void step_done(const StepRecord&) override { ++steps; }
  void sample(int, const std::string&, double) override {}
  void histogram(int, const std::string&, std::int64_t) override {}
  void table_row(const std::string& table, const std::vector<std::pair<std::string, double>>& row) override {
    nlohmann::json r = nlohmann::json::object();
    for (const auto& [k, v] : row) r[k] = v;
    rows.push_back({{"table", table}, {"row", r}});
  }
  bool tracing() const override { return true; }
  void span(const TraceSpan& s) override {
    spans.push_back({{"rank", s.rank}, {"category", s.category}, {"name", s.name}, {"start", s.start_s}, {"end", s.end_s}});
  }
  std::int64_t steps = 0;
  nlohmann::json rows = nlohmann::json::array(), spans = nlohmann::json::array();
};

ParamValue value_of(const ParamSpec& spec, const nlohmann::json& v) {
  switch (spec.type) {
    case ParamType::Bool: return v.get<bool>();
    case ParamType::Int: return v.get<std::int64_t>();
    case ParamType::Double: return v.get<double>();
    case ParamType::String: return v.get<std::string>();
  }
  return v.get<std::string>();
}

}  // namespace

AlgorithmRunResult run_algorithm(const AlgorithmRun& run) {
  AlgorithmRunResult result;
  const AlgorithmInfo* info = find_algorithm(run.algorithm);
  if (info == nullptr) {
    result.error = "unknown algorithm " + run.algorithm;
    return result;
  }
  const int world = rank_count(run.platform);
  AlgorithmParams params;
  for (const auto* specs : {&common_algorithm_params(), &info->params})
    for (const auto& spec : *specs) {
      if (run.params.contains(spec.name)) params.set(spec.name, value_of(spec, run.params[spec.name]));
      else if (spec.default_value) params.set(spec.name, *spec.default_value);
    }
  if (info->derive) info->derive(params, world);
  if (info->validate) {
    const std::string error = info->validate(params, world);
    if (!error.empty()) {
      result.error = error;
      return result;
    }
  }
  RunSettings settings;
  settings.iterations = run.iterations;
  settings.seed = run.seed;
  settings.world_size = world;
  settings.world = Group::world(world);
  settings.model_bytes = run.model_bytes;
  settings.ranks_per_node = ranks_per_node(run.platform);
  settings.allreduce = allreduce_options_from(params, Fidelity::Phase);

  MathConfig math;
  math.model = run.math ? "hyperplane" : "none";
  math.batch = 8;
  math.hyperplane.dim = 15;
  math.hyperplane.train_size = 256;
  math.hyperplane.test_size = 32;
  math.sgd.lr = run.lr;

  const HarnessResult h = run_simulated(
      run.platform,
      [&](Comm& comm) {
        static const auto setup = make_math_setup(math, run.seed);
        Trainer trainer(setup, comm.rank(), world);
        auto& p = trainer.params();
        for (std::size_t i = 0; i < p.size(); ++i)
          p[i] = static_cast<float>(std::sin(0.7 * comm.rank() + 1.3 * static_cast<double>(i)) * (1 + comm.rank()));
        const std::vector<float> initial = p;
        RecordingObserver observer;
        RankContext ctx{comm, trainer, settings, params, observer};
        info->make(params, world)->run(ctx);
        return nlohmann::json{{"initial", initial}, {"final", trainer.params()}, {"spans", observer.spans},
                              {"rows", observer.rows}, {"steps", observer.steps}};
      },
      constant_compute(run.compute_s, world, run.imbalance, run.seed));
  if (!h.ok) {
    result.error = h.error;
    return result;
  }
  result.ok = true;
  result.end_time = h.end_time;
  for (const auto& r : h.per_rank) {
    result.initial.push_back(r["initial"].get<std::vector<float>>());
    result.final.push_back(r["final"].get<std::vector<float>>());
    for (const auto& s : r["spans"]) result.spans.push_back(s);
    for (const auto& s : r["rows"]) result.rows.push_back(s);
    result.steps.push_back(r["steps"].get<std::int64_t>());
  }
  return result;
}

}  // namespace quorum::testing
