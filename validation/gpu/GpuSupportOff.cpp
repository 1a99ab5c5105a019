// Built when the CUDA toolkit or NCCL was not found: the GPU path is absent and says so.
#include <stdexcept>

#include "validation/gpu/GpuSupport.hpp"

namespace quorum::gpu {

namespace {
const char* kWhy = "this quorum was built without CUDA/NCCL (CMake did not find the CUDA toolkit, or QUORUM_CUDA=OFF)";
}

GpuProbe probe() {
  GpuProbe p;
  p.reason = kWhy;
  return p;
}

int select_device(MPI_Comm) { throw std::runtime_error(kWhy); }

int current_device() { return 0; }

std::vector<DeviceIdentity> gather_device_identities(MPI_Comm) { throw std::runtime_error(kWhy); }

std::shared_ptr<const Model> make_gpu_model(const MathSetup&) {
  throw std::runtime_error(kWhy);
}

std::unique_ptr<mpi::NativeAllreduce> make_nccl_allreduce(MPI_Comm, bool, std::size_t) {
  throw std::runtime_error(kWhy);
}

}  // namespace quorum::gpu
