// Device discovery and selection for the GPU path (see GpuSupport.hpp).
#include "validation/gpu/GpuSupport.hpp"

#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <stdexcept>

#include "validation/gpu/CudaCheck.hpp"
#include "validation/mpi/MpiEnvironment.hpp"
#include "validation/mpi/MpiError.hpp"

namespace quorum::gpu {

namespace {
std::atomic<int> g_device{0};
}

GpuProbe probe() {
  GpuProbe p;
  p.built = true;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    p.reason = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(e) + " (CUDA error " +
               std::to_string(static_cast<int>(e)) + "): no CUDA driver or no device on this machine";
    return p;
  }
  if (count == 0) {
    p.reason = "no CUDA device is visible (check CUDA_VISIBLE_DEVICES)";
    return p;
  }
  p.devices = count;
  return p;
}

int select_device(MPI_Comm comm) {
  const GpuProbe p = probe();
  if (!p.usable()) throw std::runtime_error(p.reason);
  // The rank's position among the ranks of its node picks the device, so N ranks on a node with N GPUs get one each.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  const int device = local % p.devices;
  cuda_check(cudaSetDevice(device), "cudaSetDevice");
  g_device = device;
  return device;
}

int current_device() { return g_device.load(); }

std::vector<DeviceIdentity> gather_device_identities(MPI_Comm comm) {
  // Fixed-size records, so one MPI_Allgather carries them; both strings are NUL-terminated within their field.
  struct Record {
    std::array<char, MPI_MAX_PROCESSOR_NAME + 1> host{};
    std::array<char, 64> pci_bus_id{};
  };
  Record mine;
  const std::string host = mpi::MpiEnvironment::processor_name();
  host.copy(mine.host.data(), mine.host.size() - 1);
  cuda_check(cudaDeviceGetPCIBusId(mine.pci_bus_id.data(), static_cast<int>(mine.pci_bus_id.size() - 1),
                                   current_device()),
             "cudaDeviceGetPCIBusId");
  int size = 0;
  MPI_Comm_size(comm, &size);
  std::vector<Record> all(static_cast<std::size_t>(size));
  const int bytes = static_cast<int>(sizeof(Record));
  mpi::check(MPI_Allgather(&mine, bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, comm),
             "MPI_Allgather (device identities)");
  std::vector<DeviceIdentity> identities;
  for (const Record& r : all) identities.push_back({r.host.data(), r.pci_bus_id.data()});
  return identities;
}

}  // namespace quorum::gpu
