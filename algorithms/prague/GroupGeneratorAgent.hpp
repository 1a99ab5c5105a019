#pragma once
// Runs the Group Generator (GroupGenerator.hpp) as an agent on one rank's host: it answers the workers' requests,
// acknowledgements and final notices in arrival order, sends activations as groups become startable, releases
// finished workers, and returns once every worker is released. Per-group records go to the observer.
#include "algorithms/RankContext.hpp"
#include "algorithms/prague/GroupGenerator.hpp"

namespace quorum {

struct GroupGeneratorAgentOptions {
  GroupGeneratorConfig generator;
  double service_s = 0;  // modelled handling time per message (a slow or remote generator)
};

void run_group_generator(Comm& comm, StepObserver& observer, const GroupGeneratorAgentOptions& options);

}  // namespace quorum
