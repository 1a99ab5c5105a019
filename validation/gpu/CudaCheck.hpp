#pragma once
// Turns CUDA runtime, cuBLAS and NCCL error codes into exceptions that name the call.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace quorum::gpu {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later probes start clean
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(e) + " (CUDA error " +
                             std::to_string(static_cast<int>(e)) + ")");
  }
}

inline void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: cuBLAS status " + std::to_string(static_cast<int>(s)));
}

}  // namespace quorum::gpu
