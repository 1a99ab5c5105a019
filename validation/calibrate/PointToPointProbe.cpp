#include "validation/calibrate/PointToPointProbe.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "validation/mpi/MpiError.hpp"

namespace quorum::calibration {

namespace {

const Tag kPingTag = tags::make(Channel::Benchmark, 1);
const Tag kPongTag = tags::make(Channel::Benchmark, 2);
const Tag kRingTag = tags::make(Channel::Benchmark, 3);

std::vector<std::byte> buffer_of(double bytes) { return std::vector<std::byte>(static_cast<std::size_t>(bytes)); }

int count_of(const std::vector<std::byte>& b) { return static_cast<int>(b.size()); }

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int round_trips_for(double seconds, double estimate) {
  return std::clamp(static_cast<int>(seconds / std::max(2 * estimate, 1e-6)), 3, 200);
}

double comm_ping_pong(mpi::MpiComm& comm, int a, int b, double bytes, int round_trips) {
  const bool initiator = comm.rank() == a;
  const int peer = initiator ? b : a;
  std::vector<double> times;
  const int warmup = std::max(2, round_trips / 10);
  for (int i = 0; i < warmup + round_trips; ++i) {
    const double t0 = comm.now();
    if (initiator) {
      comm.send(peer, kPingTag, {}, bytes);
      comm.recv(peer, kPongTag);
    } else {
      comm.recv(peer, kPingTag);
      comm.send(peer, kPongTag, {}, bytes);
    }
    if (i >= warmup) times.push_back((comm.now() - t0) / 2);
  }
  return median(times);
}

double raw_ping_pong(MPI_Comm comm, int a, int b, double bytes, int round_trips) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const bool initiator = rank == a;
  const int peer = initiator ? b : a;
  std::vector<std::byte> out = buffer_of(bytes), in = buffer_of(bytes);
  std::vector<double> times;
  const int warmup = std::max(2, round_trips / 10);
  for (int i = 0; i < warmup + round_trips; ++i) {
    const double t0 = MPI_Wtime();
    if (initiator) {
      mpi::check(MPI_Send(out.data(), count_of(out), MPI_BYTE, peer, 1, comm), "MPI_Send (ping)");
      mpi::check(MPI_Recv(in.data(), count_of(in), MPI_BYTE, peer, 2, comm, MPI_STATUS_IGNORE), "MPI_Recv (pong)");
    } else {
      mpi::check(MPI_Recv(in.data(), count_of(in), MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE), "MPI_Recv (ping)");
      mpi::check(MPI_Send(out.data(), count_of(out), MPI_BYTE, peer, 2, comm), "MPI_Send (pong)");
    }
    if (i >= warmup) times.push_back((MPI_Wtime() - t0) / 2);
  }
  return median(times);
}

double comm_shift_exchange(mpi::MpiComm& comm, int shift, double bytes) {
  const int p = comm.size(), right = (comm.rank() + shift) % p, left = (comm.rank() + p - shift % p) % p;
  const double t0 = comm.now();
  auto in = comm.irecv(left, kRingTag);
  auto out = comm.isend(right, kRingTag, {}, bytes);
  comm.wait(out);
  comm.wait(in);
  comm.take(in);
  double elapsed = comm.now() - t0, slowest = 0;
  mpi::check(MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm.runtime().world().control()),
             "MPI_Allreduce (slowest exchange)");
  return slowest;
}

double raw_shift_exchange(MPI_Comm comm, int shift, double bytes) {
  int rank = 0, p = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  const int right = (rank + shift) % p, left = (rank + p - shift % p) % p;
  std::vector<std::byte> out = buffer_of(bytes), in = buffer_of(bytes);
  MPI_Request requests[2];
  const double t0 = MPI_Wtime();
  mpi::check(MPI_Irecv(in.data(), count_of(in), MPI_BYTE, left, 3, comm, &requests[0]), "MPI_Irecv (ring)");
  mpi::check(MPI_Isend(out.data(), count_of(out), MPI_BYTE, right, 3, comm, &requests[1]), "MPI_Isend (ring)");
  mpi::check(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "MPI_Waitall (ring)");
  double elapsed = MPI_Wtime() - t0, slowest = 0;
  mpi::check(MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce (slowest exchange)");
  return slowest;
}

}  // namespace quorum::calibration
