#pragma once
// State shared by all ranks of one simulation: rank placement, mailboxes, the compute model, live agents.
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "algorithms/comm/Tag.hpp"
#include "sim/model/ComputeModel.hpp"

namespace quorum {

class SimWorld {
 public:
  SimWorld(std::vector<simgrid::s4u::Host*> hosts, const ComputeModel& compute)
      : hosts_(std::move(hosts)), compute_(compute) {}

  int size() const { return static_cast<int>(hosts_.size()); }
  simgrid::s4u::Host* host(int rank) const { return hosts_[static_cast<std::size_t>(rank)]; }
  const ComputeModel& compute() const { return compute_; }

  // One mailbox per (destination, source, tag); any-source tags use source -1. Matching per triple is then
  // SimGrid's FIFO matching, which is MPI's non-overtaking rule.
  simgrid::s4u::Mailbox* mailbox(int dst, int src, Tag tag);

  int live_agents = 0;      // progress agents started and not yet finished
  std::string first_error;  // first exception escaping a rank or agent (it would abort SimGrid)

 private:
  std::vector<simgrid::s4u::Host*> hosts_;
  const ComputeModel& compute_;
  std::unordered_map<std::uint64_t, simgrid::s4u::Mailbox*> mailboxes_;
};

}  // namespace quorum
