# The GPU path (proxy math on the GPU, allreduce over NCCL). On by default when the CUDA toolkit and NCCL are found;
# without them (a plain Debian 12 machine) the build goes on without it and mpi.device = gpu says so at run time.
target_sources(quorum_validation PRIVATE gpu/GpuSupportOff.cpp)
