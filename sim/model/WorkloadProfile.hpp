#pragma once
// Workload profiles: how long one local step takes on the paper's hardware (a duration distribution) and how much
// a step communicates (the model's parameter count), and for some models how the gradients come out of the backward
// pass layer by layer (for backward-pass overlap). Every figure carries its source.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/GradientLayout.hpp"

namespace quorum {

struct WorkloadProfile {
  std::string name;
  std::string description;
  std::int64_t parameters = 0;  // floats communicated per full-model message
  std::int64_t batch = 0;       // samples per rank and step that the timings refer to
  nlohmann::json compute;       // a distribution (see Distribution.hpp)
  std::string source;
  // Per-layer gradients in backward order (LayerTables.hpp); empty where no layer table is known yet.
  GradientLayout gradients;
};

const std::vector<WorkloadProfile>& workload_profiles();
const WorkloadProfile* find_workload_profile(const std::string& name);

}  // namespace quorum
