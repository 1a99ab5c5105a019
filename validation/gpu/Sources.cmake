# Adds the GPU path's sources to quorum_validation (see Gpu.cmake for when it is on).
if(QUORUM_HAVE_CUDA)
  # The kernels are compiled on their own (C++17, none of the C++20 usage requirements of the host code, which CMake
  # 3.25 cannot pass to nvcc) and linked into quorum_validation.
  add_library(quorum_gpu_kernels STATIC gpu/GpuKernels.cu)
  target_include_directories(quorum_gpu_kernels PRIVATE ${PROJECT_SOURCE_DIR})
  set_target_properties(quorum_gpu_kernels PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                                      POSITION_INDEPENDENT_CODE ON)
  target_sources(quorum_validation PRIVATE gpu/GpuSupport.cpp gpu/GpuModels.cpp gpu/NcclAllreduce.cpp)
  target_include_directories(quorum_validation PRIVATE ${QUORUM_NCCL_INCLUDE_DIR})
  target_link_libraries(quorum_validation PUBLIC quorum_gpu_kernels CUDA::cudart CUDA::cublas ${QUORUM_NCCL_LIBRARY})
  target_compile_definitions(quorum_validation PUBLIC QUORUM_HAVE_CUDA=1)
else()
  target_sources(quorum_validation PRIVATE gpu/GpuSupportOff.cpp)
endif()
