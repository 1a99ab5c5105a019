# The GPU path of the MPI backend (proxy math on the GPU, allreduce over NCCL), included from the top-level
# CMakeLists.txt because enable_language(CUDA) must run in the directory that links the executables. On by default
# when a CUDA compiler, the CUDA toolkit and NCCL are found; otherwise the build goes on without it (a plain Debian 12
# machine or CI image) and mpi.device = gpu says so at run time. Without a GPU at run time every GPU entry point
# reports it (cudaGetDeviceCount fails with error 35 when there is no driver) and the GPU tests skip.
option(QUORUM_CUDA "Build the GPU path (CUDA + NCCL) of the MPI backend when the toolkit is found" ON)
set(QUORUM_HAVE_CUDA OFF)
if(QUORUM_CUDA AND MPI_CXX_FOUND)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # CUDA 13 supports compute capability 7.5 and up; cover Turing, Ampere and Hopper (override on the command line).
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75 80 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit)
    if(CUDAToolkit_FOUND)
      find_path(QUORUM_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME PATH_SUFFIXES include)
      find_library(QUORUM_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME PATH_SUFFIXES lib lib64)
    endif()
    if(CUDAToolkit_FOUND AND TARGET CUDA::cublas AND QUORUM_NCCL_INCLUDE_DIR AND QUORUM_NCCL_LIBRARY)
      set(QUORUM_HAVE_CUDA ON)
    endif()
  endif()
endif()
if(QUORUM_HAVE_CUDA)
  message(STATUS "quorum: GPU path on (CUDA ${CUDAToolkit_VERSION}, NCCL ${QUORUM_NCCL_LIBRARY})")
else()
  message(STATUS "quorum: GPU path off (needs QUORUM_CUDA=ON, Open MPI, a CUDA compiler, the toolkit and NCCL)")
endif()
