#pragma once
// The GPU path of the MPI backend (mpi.device = gpu): the proxy math on the GPU (cuBLAS and a few CUDA kernels) and
// native allreduces over NCCL. Built when CMake finds the CUDA toolkit and NCCL (option QUORUM_CUDA); without them
// these functions exist but report that the build has no GPU support. Every entry point checks for a device first
// and fails with a clear message when there is none (cudaGetDeviceCount fails with error 35 without a driver).
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/MathSetup.hpp"
#include "validation/gpu/DeviceSharing.hpp"
#include "validation/mpi/NativeAllreduce.hpp"

namespace quorum::gpu {

struct GpuProbe {
  bool built = false;       // compiled with CUDA and NCCL
  int devices = 0;          // CUDA devices visible to this process
  std::string reason;       // why there is no usable device (empty when there is one)
  bool usable() const { return built && devices > 0; }
};
GpuProbe probe();

// Picks this rank's device: its rank among the ranks on the same node, modulo the node's device count. Collective
// over comm. Returns the device id; throws std::runtime_error if there is none.
int select_device(MPI_Comm comm);

// The device select_device() chose for this rank (0 before).
int current_device();

// Every rank's device (current_device()) as NCCL tells devices apart, host and PCI bus id, indexed by rank in comm.
// Collective over comm.
std::vector<DeviceIdentity> gather_device_identities(MPI_Comm comm);

// A Model whose loss_and_gradient runs on this rank's device (init and evaluation stay on the host, so every
// replica starts from the same weights and evaluation matches the simulator's). Throws for unknown models.
std::shared_ptr<const Model> make_gpu_model(const MathSetup& setup);

// Native allreduce over NCCL: the group's communicator built from an MPI communicator of the members
// (MPI_Comm_create_group, then ncclGetUniqueId on the group's first member, MPI_Bcast, ncclCommInitRank), cached
// with the same agreed eviction as the MPI communicators. A group with two members on one device (NCCL refuses it)
// reduces over MPI instead, its math staying on the GPU; rank 0 says so once on stderr and stats() records it.
// Collective over parent (every rank's device is gathered once, so all members of a group choose the same way).
std::unique_ptr<mpi::NativeAllreduce> make_nccl_allreduce(MPI_Comm parent, bool pad_to_logical,
                                                         std::size_t cache_capacity = 8);

}  // namespace quorum::gpu
