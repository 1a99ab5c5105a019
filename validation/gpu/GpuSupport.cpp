// Device discovery and selection for the GPU path (see GpuSupport.hpp).
#include "validation/gpu/GpuSupport.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <stdexcept>

#include "validation/gpu/CudaCheck.hpp"

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

}  // namespace quorum::gpu
