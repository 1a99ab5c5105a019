#pragma once
// The MPI library's own allreduce in simulation, charged from the platform's measured table: the members meet (the
// collective starts when the last one arrives, as MPI_Allreduce does), the sum is computed exactly in member order,
// and every member then spends the measured time (SimComm: a sleep, or work on the shared cores, which concurrent
// groups share). Used where the real run calls MPI_Allreduce
// (mpi.native_allreduce on a platform with a calibrated table), so that the prediction charges what the library
// costs rather than a point-to-point ring the library does not run.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include "algorithms/comm/Group.hpp"
#include "algorithms/comm/Tag.hpp"
#include "platforms/NativeAllreduceTable.hpp"

namespace quorum {

class SimNativeAllreduce {
 public:
  explicit SimNativeAllreduce(const NativeAllreduceTable& table) : table_(table) {}

  // Called by every member of group (same group, channel and data size); blocks the calling actor until the last
  // member arrives, when the sum is in `data`, and returns the table's time of the collective, which the member must
  // then spend. Throws std::logic_error on a non-member or mismatched sizes.
  double meet_and_sum(int rank, std::vector<float>& data, const Group& group, double logical_bytes, Channel channel);

 private:
  struct Meeting {
    simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
    simgrid::s4u::ConditionVariablePtr all_arrived = simgrid::s4u::ConditionVariable::create();
    std::vector<std::vector<float>*> data;  // by member index; null: not arrived yet
    int arrived = 0;
    double logical_bytes = 0;
    std::size_t values = 0;   // real values per member this round
    std::uint64_t round = 0;  // completed allreduces of this group and channel
    double seconds = 0;       // the table's time of the last completed round
  };
  const NativeAllreduceTable& table_;
  std::map<std::pair<int, std::vector<int>>, Meeting> meetings_;  // (channel, members)
};

}  // namespace quorum
