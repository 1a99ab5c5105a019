#include "validation/gpu/DeviceSharing.hpp"

#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace quorum::gpu {

std::vector<std::vector<int>> members_sharing_a_device(const std::vector<DeviceIdentity>& members) {
  // Members are visited in order, so every set is ascending and sets appear in the order of their first member.
  std::map<std::pair<std::string, std::string>, std::size_t> set_of_device;
  std::vector<std::vector<int>> by_device;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto [it, added] =
        set_of_device.try_emplace({members[i].host, members[i].pci_bus_id}, by_device.size());
    if (added) by_device.emplace_back();
    by_device[it->second].push_back(static_cast<int>(i));
  }
  std::vector<std::vector<int>> sharing;
  for (auto& set : by_device)
    if (set.size() > 1) sharing.push_back(std::move(set));
  return sharing;
}

std::string describe_shared_devices(const std::vector<DeviceIdentity>& members,
                                    const std::vector<std::vector<int>>& sharing, const std::vector<int>& ranks) {
  if (ranks.size() != members.size())
    throw std::invalid_argument("describe_shared_devices: one rank per member is needed");
  std::ostringstream os;
  for (std::size_t s = 0; s < sharing.size(); ++s) {
    if (s > 0) os << "; ";
    os << "ranks ";
    for (std::size_t k = 0; k < sharing[s].size(); ++k)
      os << (k > 0 ? ", " : "") << ranks.at(static_cast<std::size_t>(sharing[s][k]));
    const DeviceIdentity& device = members.at(static_cast<std::size_t>(sharing[s].front()));
    os << " share device " << device.pci_bus_id << " on " << device.host;
  }
  return os.str();
}

}  // namespace quorum::gpu
