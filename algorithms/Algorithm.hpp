#pragma once
// An SGD variant, written once against Comm. One instance runs per rank.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/AlgorithmParams.hpp"
#include "algorithms/RankContext.hpp"

namespace quorum {

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual void run(RankContext& ctx) = 0;
};

struct AlgorithmInfo {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  // Cross-field checks once the world size is known (e.g. a group size that must be a power of two dividing P).
  // Returns an error naming the field and the allowed values, or an empty string.
  std::function<std::string(const AlgorithmParams&, int world_size)> validate;
  // Fills parameters whose value derives from the world size (e.g. group_size = sqrt(P)); may be empty.
  std::function<void(AlgorithmParams&, int world_size)> derive;
  std::function<std::unique_ptr<Algorithm>(const AlgorithmParams&, int world_size)> make;
  // Ranks that serve rather than train (parameter servers): they run no steps and record none, and throughput,
  // samples and waits are counted over the other ranks. Empty: every rank trains.
  std::function<std::vector<int>(const AlgorithmParams&, int world_size)> service_ranks;
};

// Parameters every algorithm accepts (the point-to-point allreduce used for synchronous collectives).
const std::vector<ParamSpec>& common_algorithm_params();

// All algorithms, in the order `quorum list` shows them.
const std::vector<AlgorithmInfo>& algorithm_catalog();
const AlgorithmInfo* find_algorithm(const std::string& name);

// Builds RunSettings::allreduce from the common parameters.
AllreduceOptions allreduce_options_from(const AlgorithmParams& params, Fidelity fidelity);

}  // namespace quorum
