#pragma once
// Which members of a group sit on the same physical CUDA device. NCCL refuses a communicator with two ranks on one
// device (ncclCommInitRank fails with "invalid usage"; its duplicate-GPU check compares the host and the device's PCI
// bus id), so the GPU path asks this before creating one and takes MPI for such groups. Pure (no CUDA, no MPI), so it
// is tested on machines without a GPU.
#include <string>
#include <vector>

namespace quorum::gpu {

// A rank's device as NCCL tells devices apart: the host it runs on and the device's PCI bus id.
struct DeviceIdentity {
  std::string host;
  std::string pci_bus_id;  // as cudaDeviceGetPCIBusId writes it, e.g. "0000:3B:00.0"
};

// The sets of member indices that share a device: each ascending, of two or more, ordered by their first member;
// empty when every member has a device of its own.
std::vector<std::vector<int>> members_sharing_a_device(const std::vector<DeviceIdentity>& members);

// One line for people, e.g. "ranks 0, 1 share device 0000:3B:00.0 on n1; ranks 2, 3 share device ...", where
// ranks[i] is the rank of member i and sharing is what members_sharing_a_device returned.
std::string describe_shared_devices(const std::vector<DeviceIdentity>& members,
                                    const std::vector<std::vector<int>>& sharing, const std::vector<int>& ranks);

}  // namespace quorum::gpu
