#include "sim/simgrid/SimNativeAllreduce.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <mutex>
#include <stdexcept>
#include <string>

namespace quorum {

namespace sg4 = simgrid::s4u;

double SimNativeAllreduce::meet_and_sum(int rank, std::vector<float>& data, const Group& group, double logical_bytes,
                                        Channel channel) {
  const int index = group.index_of(rank);
  Meeting& m = meetings_[{static_cast<int>(channel), group.members}];
  std::unique_lock lock(*m.mutex);
  if (m.arrived == 0) {
    m.data.assign(group.members.size(), nullptr);
    m.logical_bytes = logical_bytes;
    m.values = data.size();
  } else if (data.size() != m.values) {
    throw std::logic_error("native allreduce: rank " + std::to_string(rank) + " brings " +
                           std::to_string(data.size()) + " values, the members before it " + std::to_string(m.values));
  }
  if (m.data[static_cast<std::size_t>(index)] != nullptr)
    throw std::logic_error("native allreduce: rank " + std::to_string(rank) + " joined the same round twice");
  m.data[static_cast<std::size_t>(index)] = &data;

  if (++m.arrived == group.size()) {
    // The last member to arrive starts the collective: the exact sum in member order, into every member.
    std::vector<float> sum(data.size(), 0.0f);
    for (const auto* d : m.data)
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += (*d)[i];
    for (auto* d : m.data) *d = sum;
    m.seconds = table_.seconds(group.size(), m.logical_bytes);
    m.arrived = 0;
    m.data.assign(m.data.size(), nullptr);
    ++m.round;
    m.all_arrived->notify_all();
  } else {
    const std::uint64_t round = m.round;
    while (m.round == round) m.all_arrived->wait(lock);
  }
  // Every member reads the time at the instant of the last arrival, before any of them can start a new round.
  return m.seconds;
}

}  // namespace quorum
