#pragma once
// Point-to-point measurements, each made twice in the same job: through Comm (the MPI backend's path: header, data
// message, progress engine) and through plain MPI (MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv/MPI_Waitall on a duplicate
// of MPI_COMM_WORLD), so that what the backend adds to the MPI it runs on is measured, not assumed.
#include <mpi.h>

#include <vector>

#include "validation/mpi/MpiComm.hpp"

namespace quorum::calibration {

// Median one-way time (half a round trip) of messages of `bytes` between ranks a and b; only a and b call.
double comm_ping_pong(mpi::MpiComm& comm, int a, int b, double bytes, int round_trips);
double raw_ping_pong(MPI_Comm comm, int a, int b, double bytes, int round_trips);

// Round trips that fill about `seconds` at the one-way time `estimate`, within [3, 200].
int round_trips_for(double seconds, double estimate);

// Every rank at once sends `bytes` to rank + shift and receives as much from rank - shift (modulo the ranks): shift 1
// is what a ring collective does; shift = ranks per node sends every rank's message off its node at once. Returns the
// slowest rank's time (every rank calls; the same value on every rank). The caller aligns the ranks first.
double comm_shift_exchange(mpi::MpiComm& comm, int shift, double bytes);
double raw_shift_exchange(MPI_Comm comm, int shift, double bytes);

double median(std::vector<double> v);

}  // namespace quorum::calibration
