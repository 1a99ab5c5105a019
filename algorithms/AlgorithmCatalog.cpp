// The list of algorithms. A new algorithm adds its info() here.
#include "algorithms/Algorithm.hpp"
#include "algorithms/sgd/AllreduceSgd.hpp"
#include "algorithms/sgd/LocalSgd.hpp"
#include "algorithms/gossip/AdPsgd.hpp"
#include "algorithms/gossip/DPsgd.hpp"
#include "algorithms/gossip/Sgp.hpp"
#include "algorithms/prague/Prague.hpp"
#include "algorithms/ps/AsyncParameterServer.hpp"
#include "algorithms/ps/Eamsgd.hpp"
#include "algorithms/sgd/EagerSgd.hpp"
#include "algorithms/sgd/WagmaSgd.hpp"
#include "algorithms/bench/CollectiveBench.hpp"

namespace quorum {

const std::vector<ParamSpec>& common_algorithm_params() {
  static const std::vector<ParamSpec> common = {
      {"allreduce", ParamType::String, ParamValue{std::string("ring")},
       "point-to-point algorithm of synchronous allreduces", {"ring", "recursive_doubling", "rabenseifner"}, {}},
  };
  return common;
}

const std::vector<AlgorithmInfo>& algorithm_catalog() {
  static const std::vector<AlgorithmInfo> catalog = {
      AllreduceSgd::info(),
      LocalSgd::info(),
      DPsgd::info(),
      Sgp::info(),
      AdPsgd::info(),
      Prague::info(),
      AsyncParameterServer::info(),
      Eamsgd::info(),
      EagerSgd::info(),
      WagmaSgd::info(),
      CollectiveBench::info(),
  };
  return catalog;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& info : algorithm_catalog())
    if (info.name == name) return &info;
  return nullptr;
}

AllreduceOptions allreduce_options_from(const AlgorithmParams& params, Fidelity fidelity) {
  AllreduceOptions options;
  options.fidelity = fidelity;
  if (params.has("allreduce")) parse_allreduce_algorithm(params.get_string("allreduce"), options.algorithm);
  return options;
}

}  // namespace quorum
