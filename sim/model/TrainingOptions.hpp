#pragma once
// The math block's training options beyond the model itself: how the training set is partitioned among the
// ranks (math.partition), the learning-rate schedule and scaling rule (math.lr_schedule, math.lr_scaling,
// math.reference_batch) and the convergence target whose time summary.json reports (math.target_accuracy,
// math.target_loss). Field reference: scenarios/README.md.
#include <cstdint>
#include <string>

#include "kernels/MathSetup.hpp"

namespace quorum {

class Fields;

// Models whose data sets have labels (partitioning by label, target accuracy): every model but none and hyperplane.
bool model_has_labels(const std::string& model);

// math.partition: {"kind": "iid"} (default), {"kind": "dirichlet", "alpha": a > 0}, {"kind": "shards", "per_rank": k}.
PartitionConfig parse_partition(Fields& math, const std::string& model);

// math.lr_scaling ("none" | "linear") and math.reference_batch (256): the peak learning rate, recorded as
// math.peak_lr. linear: lr x training_ranks x batch / reference_batch (Goyal et al. 2017).
double parse_lr_scaling(Fields& math, double lr, int training_ranks, std::int64_t batch);

// math.lr_schedule: {"kind": "constant" | "step" | "cosine", ...}; iterations is the cosine horizon.
LrSchedule parse_lr_schedule(Fields& math, double peak_lr, std::int64_t iterations);

// math.target_accuracy (0..1, classification models) or math.target_loss (> 0), not both.
void parse_targets(Fields& math, MathConfig& config);

}  // namespace quorum
