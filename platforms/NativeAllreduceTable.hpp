#pragma once
// The time of the MPI library's own allreduce (MPI_Allreduce) on a machine, as `quorum calibrate` measured it: one
// figure per (group size, bytes). The simulator charges a native allreduce from it, since the point-to-point
// algorithms it would otherwise simulate are not the library's (Open MPI picks its algorithm by size and ranks, and
// reduces in shared memory on one node). SimGrid-free.
#include <map>
#include <string>
#include <vector>

namespace quorum {

struct NativeAllreducePoint {
  int ranks = 0;       // members of the group
  double bytes = 0;    // size of the vector reduced
  double seconds = 0;  // slowest member's median time, all members starting together
};

class NativeAllreduceTable {
 public:
  NativeAllreduceTable() = default;
  // Throws std::invalid_argument naming the bad point (ranks < 2, bytes or seconds not positive, a duplicate).
  explicit NativeAllreduceTable(const std::vector<NativeAllreducePoint>& points);

  bool empty() const { return by_ranks_.empty(); }
  const std::vector<NativeAllreducePoint>& points() const { return points_; }

  // Seconds for `bytes` over `ranks` members. Per measured group size: piecewise linear in bytes, the smallest
  // size's time below it (latency-bound), the last segment's slope beyond the largest (bandwidth-bound). Between
  // measured group sizes: linear in log2(ranks), the scaling of the tree and butterfly algorithms MPI uses; beyond
  // the largest, the last two sizes' trend continued (one measured size: used as is).
  double seconds(int ranks, double bytes) const;

 private:
  double at_measured(int ranks, double bytes) const;
  std::vector<NativeAllreducePoint> points_;
  std::map<int, std::vector<NativeAllreducePoint>> by_ranks_;  // sorted by bytes
};

}  // namespace quorum
