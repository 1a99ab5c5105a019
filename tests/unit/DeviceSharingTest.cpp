// Which ranks share a CUDA device (validation/gpu/DeviceSharing.hpp): the check the GPU path makes before asking
// NCCL for a communicator, which NCCL refuses when two ranks sit on one device.
#include <gtest/gtest.h>

#include "validation/gpu/DeviceSharing.hpp"

namespace quorum {

using gpu::DeviceIdentity;
using gpu::describe_shared_devices;
using gpu::members_sharing_a_device;
using Sets = std::vector<std::vector<int>>;

TEST(DeviceSharing, OneRankPerDeviceSharesNothing) {
  EXPECT_EQ(members_sharing_a_device({}), Sets{});
  EXPECT_EQ(members_sharing_a_device({{"n1", "0000:3B:00.0"}}), Sets{});
  // Four GPUs of one node, one rank each.
  EXPECT_EQ(members_sharing_a_device({{"n1", "0000:3B:00.0"},
                                      {"n1", "0000:5E:00.0"},
                                      {"n1", "0000:86:00.0"},
                                      {"n1", "0000:AF:00.0"}}),
            Sets{});
}

TEST(DeviceSharing, RanksOnOneGpuShareIt) {
  // Several ranks on a one-GPU machine: all of them share its device.
  const std::vector<DeviceIdentity> one_gpu(4, {"h100", "0000:01:00.0"});
  EXPECT_EQ(members_sharing_a_device(one_gpu), (Sets{{0, 1, 2, 3}}));
}

TEST(DeviceSharing, TheSameBusIdOnAnotherHostIsAnotherDevice) {
  // Every node numbers its own PCI bus: one GPU per node at the same address is one device per rank.
  EXPECT_EQ(members_sharing_a_device({{"n1", "0000:01:00.0"}, {"n2", "0000:01:00.0"}}), Sets{});
}

TEST(DeviceSharing, SetsAreAscendingAndOrderedByTheirFirstMember) {
  // Two nodes of one GPU each, two ranks per node, placed round robin; rank 4 has a second GPU of n2 to itself.
  const std::vector<DeviceIdentity> members = {{"n2", "0000:01:00.0"}, {"n1", "0000:01:00.0"},
                                               {"n2", "0000:01:00.0"}, {"n1", "0000:01:00.0"},
                                               {"n2", "0000:02:00.0"}};
  EXPECT_EQ(members_sharing_a_device(members), (Sets{{0, 2}, {1, 3}}));
}

TEST(DeviceSharing, DescriptionNamesRanksDevicesAndHosts) {
  const std::vector<DeviceIdentity> members = {{"n1", "0000:01:00.0"}, {"n2", "0000:01:00.0"},
                                               {"n1", "0000:01:00.0"}, {"n2", "0000:01:00.0"}};
  // Members of a group whose ranks are not their indices (group {4, 5, 6, 7}).
  const std::vector<int> ranks = {4, 5, 6, 7};
  EXPECT_EQ(describe_shared_devices(members, members_sharing_a_device(members), ranks),
            "ranks 4, 6 share device 0000:01:00.0 on n1; ranks 5, 7 share device 0000:01:00.0 on n2");
  EXPECT_EQ(describe_shared_devices(members, {}, ranks), "");
  EXPECT_THROW(describe_shared_devices(members, {}, {0, 1}), std::invalid_argument);
}

}  // namespace quorum
