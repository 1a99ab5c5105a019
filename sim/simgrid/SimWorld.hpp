#pragma once
// State shared by all ranks of one simulation: rank placement, mailboxes, the compute model, live agents.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <cstdint>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include "algorithms/comm/Tag.hpp"
#include "platforms/PlatformConfig.hpp"
#include "sim/model/ComputeModel.hpp"
#include "sim/simgrid/SimNativeAllreduce.hpp"

namespace quorum {

class SimWorld {
 public:
  SimWorld(std::vector<simgrid::s4u::Host*> hosts, const ComputeModel& compute, HostCosts costs = {})
      : hosts_(std::move(hosts)), compute_(compute), reduce_Bps_(costs.reduce_Bps) {
    if (costs.native_allreduce != nullptr && !costs.native_allreduce->empty())
      native_ = std::make_unique<SimNativeAllreduce>(*costs.native_allreduce);
  }

  int size() const { return static_cast<int>(hosts_.size()); }
  simgrid::s4u::Host* host(int rank) const { return hosts_[static_cast<std::size_t>(rank)]; }
  const ComputeModel& compute() const { return compute_; }
  // Bytes per second a rank sums (0: reductions cost no simulated time).
  double reduce_Bps() const { return reduce_Bps_; }
  // The platform's measured native allreduce, or null (native allreduces then run as point-to-point algorithms).
  SimNativeAllreduce* native_allreduce() const { return native_.get(); }

  // One mailbox per (destination, source, tag); any-source tags use source -1. Matching per triple is then
  // SimGrid's FIFO matching, which is MPI's non-overtaking rule.
  simgrid::s4u::Mailbox* mailbox(int dst, int src, Tag tag);

  int live_agents = 0;      // progress agents started and not yet finished
  std::string first_error;  // first exception escaping a rank or agent (it would abort SimGrid)

 private:
  std::vector<simgrid::s4u::Host*> hosts_;
  const ComputeModel& compute_;
  double reduce_Bps_;
  std::unique_ptr<SimNativeAllreduce> native_;
  std::unordered_map<std::uint64_t, simgrid::s4u::Mailbox*> mailboxes_;
};

}  // namespace quorum
