#include "sim/model/TrainingOptions.hpp"

#include <algorithm>

#include "sim/model/Fields.hpp"

namespace quorum {

namespace {

std::string labelled_models() {
  std::string names;
  for (const auto& m : model_catalog())
    if (model_has_labels(m.name)) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

}  // namespace

bool model_has_labels(const std::string& model) { return model != "none" && model != "hyperplane"; }

PartitionConfig parse_partition(Fields& math, const std::string& model) {
  Fields f = math.object("partition");
  PartitionConfig p;
  p.kind = f.string("kind", "iid", {"iid", "dirichlet", "shards"});
  if (p.needs_labels() && !model_has_labels(model))
    f.fail("kind", "'" + p.kind + "' partitions the training set by label, and math.model '" + model +
                       "' has no labels; use iid, or one of the models with labels: " + labelled_models());
  if (p.kind == "dirichlet") p.alpha = f.positive("alpha", std::nullopt);
  if (p.kind == "shards") p.per_rank = f.integer("per_rank", p.per_rank, 1);
  f.finish();
  math.set_resolved("partition", f.resolved());
  return p;
}

double parse_lr_scaling(Fields& math, double lr, int training_ranks, std::int64_t batch) {
  const std::string rule = math.string("lr_scaling", "none", {"none", "linear"});
  const std::int64_t reference = math.integer("reference_batch", 256, 1);
  const double peak = rule == "linear" ? lr * static_cast<double>(training_ranks * batch) / static_cast<double>(reference)
                                       : lr;
  math.set_resolved("peak_lr", peak);
  return peak;
}

LrSchedule parse_lr_schedule(Fields& math, double peak_lr, std::int64_t iterations) {
  Fields f = math.object("lr_schedule");
  LrSchedule s;
  s.kind = f.string("kind", "constant", {"constant", "step", "cosine"});
  s.warmup_steps = f.integer("warmup_steps", 0, 0);
  s.total_steps = iterations;
  if (s.kind == "step") {
    s.gamma = f.positive("gamma", s.gamma);
    if (f.has("milestones") == f.has("every"))
      f.fail("milestones", "step decay needs either milestones (a list of steps) or every (a period in steps)");
    if (f.has("milestones")) {
      s.milestones = f.integer_list("milestones", 1);
      if (s.milestones.empty() || !std::is_sorted(s.milestones.begin(), s.milestones.end()) ||
          std::adjacent_find(s.milestones.begin(), s.milestones.end()) != s.milestones.end())
        f.fail("milestones", "must be a non-empty list of increasing steps");
    } else {
      s.every = f.integer("every", std::nullopt, 1);
    }
  } else if (s.kind == "cosine") {
    s.min_lr = f.number("min_lr", 0.0, 0.0);
    if (s.min_lr > peak_lr)
      f.fail("min_lr", "must not exceed the peak learning rate " + std::to_string(peak_lr) + " (math.peak_lr)");
    if (s.warmup_steps >= iterations)
      f.fail("warmup_steps", "cosine decays after the warmup: warmup_steps must be below workload.iterations (" +
                                 std::to_string(iterations) + ")");
  }
  f.finish();
  math.set_resolved("lr_schedule", f.resolved());
  return s;
}

void parse_targets(Fields& math, MathConfig& config) {
  if (math.has("target_accuracy") && math.has("target_loss"))
    math.fail("target_loss", "set math.target_accuracy or math.target_loss, not both");
  if (math.has("target_accuracy")) {
    if (!model_has_labels(config.model))
      math.fail("target_accuracy", "math.model '" + config.model + "' has no accuracy; use math.target_loss" +
                                       (config.model == "none" ? std::string(" with a proxy model") : std::string()) +
                                       ", or one of: " + labelled_models());
    config.target_accuracy = math.number("target_accuracy", std::nullopt, 0.0, 1.0);
  }
  if (math.has("target_loss")) {
    if (!config.enabled()) math.fail("target_loss", "needs a proxy model (math.model), which is none here");
    config.target_loss = math.positive("target_loss", std::nullopt);
  }
}

}  // namespace quorum
