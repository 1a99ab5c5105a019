// Native allreduce over NCCL (mpi.device = gpu). Communicators: the group's MPI communicator comes from the same
// bounded cache as the MPI path (members-only MPI_Comm_create_group, agreed eviction); the NCCL communicator is built
// on it the first time (ncclGetUniqueId on the group's first member, MPI_Bcast over the group, ncclCommInitRank) and
// freed with it, so NCCL's cache is bounded the same way.
//
// NCCL's rules: a communicator is used by one thread at a time (the entry's lock), and operations on communicators
// that share a device must be issued in the same order on every rank, or they can deadlock on the device. This rank
// therefore runs one NCCL operation at a time, from enqueue to completion; an algorithm whose agents issue native
// collectives on overlapping groups concurrently must keep one global order across ranks (the same rule its
// point-to-point version obeys to avoid deadlock), or set mpi.native_allreduce = false.
//
// The waiting is done through the calling agent's Comm (a progress-engine operation that polls a CUDA event), so it
// counts as the agent's wait time, as in simulation.
//
// NCCL also refuses a communicator with two ranks on one device (ncclCommInitRank: "invalid usage"), which is what
// several ranks on a one-GPU machine ask for. Every rank's device (host, PCI bus id) is gathered once over the parent,
// so every member of a group reaches the same verdict without talking; a group with two members on one device reduces
// with MPI_Iallreduce on its cached MPI communicator instead (the math stays on the GPU), and NCCL is never asked.
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "validation/gpu/CudaCheck.hpp"
#include "validation/gpu/GpuSupport.hpp"
#include "validation/mpi/MpiAllreduce.hpp"
#include "validation/mpi/MpiComm.hpp"
#include "validation/mpi/MpiError.hpp"

namespace quorum::gpu {

namespace {

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + " failed: " + ncclGetErrorString(r));
}

// The NCCL side of one group: communicator, stream, device and pinned host buffers, completion event.
struct NcclGroup {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  float* device_buffer = nullptr;
  float* host_buffer = nullptr;  // pinned, so the copies are asynchronous and the wait goes through the engine
  std::size_t capacity = 0;

  NcclGroup(MPI_Comm group_comm, int rank_in_group, int device_id) : device(device_id) {
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    int size = 0;
    MPI_Comm_size(group_comm, &size);
    ncclUniqueId id;
    if (rank_in_group == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    mpi::check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, group_comm), "MPI_Bcast (NCCL unique id)");
    nccl_check(ncclCommInitRank(&comm, size, id, rank_in_group), "ncclCommInitRank");
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    cuda_check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~NcclGroup() {
    cudaSetDevice(device);
    if (comm) ncclCommDestroy(comm);
    if (done) cudaEventDestroy(done);
    if (stream) cudaStreamDestroy(stream);
    if (device_buffer) cudaFree(device_buffer);
    if (host_buffer) cudaFreeHost(host_buffer);
  }
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  void reserve(std::size_t floats) {
    if (floats <= capacity) return;
    if (device_buffer) cudaFree(device_buffer);
    if (host_buffer) cudaFreeHost(host_buffer);
    device_buffer = host_buffer = nullptr;
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&device_buffer), floats * sizeof(float)), "cudaMalloc");
    cuda_check(cudaMallocHost(reinterpret_cast<void**>(&host_buffer), floats * sizeof(float)), "cudaMallocHost");
    capacity = floats;
  }
};

// How a group's allreduces run, decided on the group's first use: over NCCL (its communicator created then), or over
// MPI when two members share a device.
struct GroupRoute {
  bool over_mpi = false;
  std::unique_ptr<NcclGroup> nccl;
};

class NcclAllreduce final : public mpi::NativeAllreduce {
 public:
  NcclAllreduce(MPI_Comm parent, bool pad_to_logical, std::size_t capacity)
      : groups_(parent, capacity), pad_to_logical_(pad_to_logical), devices_(gather_device_identities(parent)) {
    std::vector<int> ranks(devices_.size());
    std::iota(ranks.begin(), ranks.end(), 0);
    const auto sharing = members_sharing_a_device(devices_);
    if (sharing.empty()) return;
    fallback_ = describe_shared_devices(devices_, sharing, ranks) +
                ": NCCL takes one rank per device, so native allreduces of groups with two ranks on one device go "
                "over MPI (MPI_Iallreduce); the math stays on the GPU";
    int rank = 0;
    MPI_Comm_rank(parent, &rank);
    if (rank == 0) {
      std::fprintf(stderr, "quorum: mpi.device = gpu: %s\n", fallback_.c_str());
      std::fflush(stderr);
    }
  }

  void allreduce_sum(mpi::MpiComm& comm, std::vector<float>& data, const Group& group, double logical_bytes,
                     Channel channel) override {
    if (!group.contains(comm.rank())) throw std::logic_error("native allreduce called by a rank outside its group");
    auto entry = groups_.acquire(group, static_cast<int>(channel), mpi::wait_through(comm));
    float votes = 0;
    {
      std::lock_guard busy(entry->busy);
      if (!entry->extension) {
        auto route = std::make_shared<GroupRoute>();
        route->over_mpi = shares_a_device(group);
        entry->extension = route;
      }
      auto& route = *std::static_pointer_cast<GroupRoute>(entry->extension);
      if (route.over_mpi) {
        // No device work here, so the device's one-operation-at-a-time lock is not taken.
        votes = mpi::iallreduce_sum(comm, *entry, data, logical_bytes, pad_to_logical_);
        ++over_mpi_;
      } else {
        votes = reduce_over_nccl(comm, *entry, route, data, logical_bytes);
      }
    }
    groups_.release(entry, votes);
  }

  nlohmann::json stats() const override {
    return {{"kind", "NCCL"},
            {"nccl_communicators_created", created_.load()},
            {"nccl_fallback", fallback_.empty() ? nlohmann::json(nullptr) : nlohmann::json(fallback_)},
            {"allreduces_over_mpi", over_mpi_.load()},
            {"communicators_created", groups_.created()},
            {"communicators_evicted", groups_.evicted()},
            {"communicators_temporary", groups_.temporary()},
            {"communicators_cached", groups_.size()}};
  }

 private:
  // True when two members of group sit on one device (the same on every member: devices_ is the same everywhere).
  bool shares_a_device(const Group& group) const {
    std::vector<DeviceIdentity> members;
    for (int m : group.members) members.push_back(devices_.at(static_cast<std::size_t>(m)));
    return !members_sharing_a_device(members).empty();
  }

  // The sum over entry's members on the device: host buffer to device, ncclAllReduce, back; returns the summed
  // eviction flag.
  float reduce_over_nccl(mpi::MpiComm& comm, mpi::GroupCommunicator& entry, GroupRoute& route,
                         std::vector<float>& data, double logical_bytes) {
    std::lock_guard one_at_a_time(device_mutex_);
    if (!route.nccl) {
      route.nccl = std::make_unique<NcclGroup>(entry.comm, entry.rank_in_group, current_device());
      ++created_;
    }
    auto& nccl = *route.nccl;
    const std::size_t count = mpi::prepare_group_buffer(entry, data, logical_bytes, pad_to_logical_);
    nccl.reserve(count);
    cuda_check(cudaSetDevice(nccl.device), "cudaSetDevice");
    std::memcpy(nccl.host_buffer, entry.buffer.data(), count * sizeof(float));
    cuda_check(cudaMemcpyAsync(nccl.device_buffer, nccl.host_buffer, count * sizeof(float), cudaMemcpyHostToDevice,
                               nccl.stream),
               "cudaMemcpyAsync (to the device)");
    nccl_check(ncclAllReduce(nccl.device_buffer, nccl.device_buffer, count, ncclFloat, ncclSum, nccl.comm, nccl.stream),
               "ncclAllReduce");
    cuda_check(cudaMemcpyAsync(nccl.host_buffer, nccl.device_buffer, count * sizeof(float), cudaMemcpyDeviceToHost,
                               nccl.stream),
               "cudaMemcpyAsync (to the host)");
    cuda_check(cudaEventRecord(nccl.done, nccl.stream), "cudaEventRecord");
    const int device = nccl.device;
    cudaEvent_t done = nccl.done;
    comm.wait(comm.adopt(comm.runtime().engine()->track([device, done] {
      cudaSetDevice(device);
      const cudaError_t e = cudaEventQuery(done);
      if (e == cudaErrorNotReady) return false;
      cuda_check(e, "the NCCL allreduce");
      return true;
    })));
    std::memcpy(entry.buffer.data(), nccl.host_buffer, count * sizeof(float));
    return mpi::finish_group_buffer(entry, data, count);
  }

  mpi::GroupCommunicators groups_;
  bool pad_to_logical_;
  std::vector<DeviceIdentity> devices_;  // by rank in the parent
  std::string fallback_;                 // why some groups go over MPI; empty when every rank has its own device
  std::mutex device_mutex_;
  std::atomic<std::int64_t> created_{0}, over_mpi_{0};
};

}  // namespace

std::unique_ptr<mpi::NativeAllreduce> make_nccl_allreduce(MPI_Comm parent, bool pad_to_logical,
                                                         std::size_t cache_capacity) {
  const GpuProbe p = probe();
  if (!p.usable()) throw std::runtime_error(p.reason);
  return std::make_unique<NcclAllreduce>(parent, pad_to_logical, cache_capacity);
}

}  // namespace quorum::gpu
