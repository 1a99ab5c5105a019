// The MPI backend against the MPI it runs on, side by side in one job (issue: "the MPI backend at MPI's speed"):
//   1. point to point: one-way time of a ping-pong between ranks 0 and 1 through Comm and through plain
//      MPI_Send/MPI_Recv, and the bandwidth fitted from 64 KiB up;
//   2. collectives: the algorithms' point-to-point allreduces (ring, recursive doubling, Rabenseifner, with
//      native allreduce off) and the partial ones with no skew (solo, majority, and the wait-avoiding group
//      allreduce with S = 4), against MPI_Allreduce of the same bytes on the same ranks.
// Every message carries its logical size on the wire (padding), as validation runs do; the reductions sum the
// payload floats (a 1,024-float proxy vector) and then the padding (Comm::charge_reduction), as MPI_Allreduce sums
// its whole vector.
//
//   scripts/mpirun-local -np 8 build/tests/bench/quorum_mpi_bench [--max-bytes 67108864] [--progress spin|sleep]
//
// Targets (a machine with a core per rank): Comm latency at most 2x plain MPI's up to 64 KiB, bandwidth at least 80%
// of plain MPI's from 1 MiB up, point-to-point and partial collectives within 1.3x of MPI_Allreduce.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/collectives/PartialAllreduce.hpp"
#include "algorithms/collectives/SyncAllreduce.hpp"
#include "sim/model/StragglerModel.hpp"
#include "validation/calibrate/Calibration.hpp"
#include "validation/calibrate/PointToPointProbe.hpp"
#include "validation/mpi/MpiAllreduce.hpp"
#include "validation/mpi/MpiComm.hpp"
#include "validation/mpi/MpiEnvironment.hpp"
#include "validation/mpi/WaitMode.hpp"

namespace {

using namespace quorum;
using calibration::median;

constexpr std::size_t kProxyFloats = 1024;

double slowest(mpi::RankRuntime& rt, double seconds) {
  double out = 0;
  MPI_Allreduce(&seconds, &out, 1, MPI_DOUBLE, MPI_MAX, rt.world().control());
  return out;
}

int reps_for(double bytes) { return bytes >= (16 << 20) ? 5 : bytes >= (1 << 20) ? 10 : 40; }

// Median over repetitions of the slowest rank's time of one call of `op`, every rank starting together.
template <typename Op>
double time_collective(mpi::RankRuntime& rt, int reps, Op op) {
  std::vector<double> times;
  for (int i = 0; i < reps + 2; ++i) {
    rt.quiet_barrier("MPI_Ibarrier (benchmark)");
    const double t0 = rt.now();
    op();
    const double t = slowest(rt, rt.now() - t0);
    if (i >= 2) times.push_back(t);
  }
  return median(times);
}

double partial(mpi::MpiComm& comm, mpi::RankRuntime& rt, double bytes, ActivationPolicy activation, int group_size) {
  const int reps = reps_for(bytes);
  PartialAllreduceConfig c;
  c.activation = activation;
  c.buffer = group_size > 0 ? SendBufferPolicy::Replace : SendBufferPolicy::Accumulate;
  c.versions = reps + 2;
  c.logical_bytes = bytes;
  c.initial_buffer.assign(kProxyFloats, 0.0f);
  if (group_size > 0) c.grouping.emplace(comm.size(), group_size);
  // Each collective its own tags: the one before may have left its last request or a duplicate activation behind
  // (at 16 ranks with a core each, the next one's agent took such a request: "request for a future version").
  static int instances = 0;
  c.instance = instances++ % static_cast<int>(kMaxPartialInstances);
  PartialAllreduce collective(comm, c);
  // time_collective makes reps + 2 calls: exactly the versions configured.
  const double t = time_collective(rt, reps, [&] { collective.call(std::vector<float>(kProxyFloats, 1.0f)); });
  collective.finish();
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  double max_bytes = 64 << 20;
  std::string progress = "auto";
  for (int i = 1; i < argc; i += 2) {
    const bool has_value = i + 1 < argc;
    if (has_value && std::strcmp(argv[i], "--max-bytes") == 0 && std::atof(argv[i + 1]) > 0) {
      max_bytes = std::atof(argv[i + 1]);
    } else if (has_value && std::strcmp(argv[i], "--progress") == 0 &&
               (std::strcmp(argv[i + 1], "auto") == 0 || std::strcmp(argv[i + 1], "spin") == 0 ||
                std::strcmp(argv[i + 1], "sleep") == 0)) {
      progress = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: quorum_mpi_bench [--max-bytes BYTES > 0] [--progress auto|spin|sleep] (got '%s')\n",
                   argv[i]);
      return 2;
    }
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  {
    mpi::MpiWorld world;
    MpiSettings settings;
    settings.progress = progress;
    settings.timeout_s = 600;
    StragglerSpec none;
    Distribution zero;
    mpi::RankRuntime rt(world, ComputeModel(zero, StragglerModel(none, world.size(), 1), 1), settings);
    rt.set_native(std::make_unique<mpi::MpiAllreduce>(world.collectives(), true));
    mpi::MpiComm comm(rt, "main");
    const int rank = rt.rank(), p = rt.size();
    rt.start_clock();
    if (rank == 0)
      std::printf("quorum MPI backend against plain MPI: %d ranks, %d on this host, %d cores, waiting: %s\n%s\n\n", p,
                  world.ranks_on_host(), mpi::usable_cores(), mpi::to_string(rt.wait_mode()),
                  mpi::MpiEnvironment::library_version().c_str());

    // 1. Point to point between ranks 0 and 1.
    MPI_Comm raw = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &raw);
    std::vector<std::pair<double, double>> comm_points, raw_points;
    if (rank == 0) std::printf("%12s %14s %14s %8s\n", "one-way", "Comm (us)", "plain MPI (us)", "ratio");
    for (double bytes : {0.0, 4096.0, 65536.0, 1048576.0, 4194304.0, 16777216.0}) {
      if (bytes > max_bytes) break;
      const int reps = bytes >= (4 << 20) ? 20 : 200;
      double c = 0, r = 0;
      if (rank < 2) {
        c = calibration::comm_ping_pong(comm, 0, 1, bytes, reps);
        r = calibration::raw_ping_pong(raw, 0, 1, bytes, reps);
      }
      rt.quiet_barrier("MPI_Ibarrier (benchmark)");
      if (bytes >= 65536) {
        comm_points.emplace_back(bytes, c);
        raw_points.emplace_back(bytes, r);
      }
      if (rank == 0) std::printf("%12.0f %14.2f %14.2f %7.2fx\n", bytes, c * 1e6, r * 1e6, c / r);
    }
    const auto cf = calibration::fit_alpha_beta(comm_points), rf = calibration::fit_alpha_beta(raw_points);
    if (rank == 0)
      std::printf("%12s %11.2f GB/s %11.2f GB/s %7.0f%%\n\n", "bandwidth", cf.bandwidth_Bps * 1e-9,
                  rf.bandwidth_Bps * 1e-9, 100.0 * cf.bandwidth_Bps / rf.bandwidth_Bps);
    MPI_Comm_free(&raw);

    // 2. Collectives over every rank, against MPI_Allreduce (the backend's native path) of the same bytes.
    if (rank == 0)
      std::printf("%10s %12s | %s\n", "bytes", "MPI_Allreduce", "ratio to MPI_Allreduce: ring, recursive doubling, "
                                                              "Rabenseifner, solo, majority, group (S = 4)");
    const Group world_group = Group::world(p);
    for (double bytes = 4096; bytes <= max_bytes; bytes *= 16) {
      const int reps = reps_for(bytes);
      std::vector<float> data(kProxyFloats, 1.0f);
      const double native = time_collective(rt, reps, [&] {
        rt.native()->allreduce_sum(comm, data, world_group, bytes, Channel::SyncAllreduce);
      });
      std::vector<double> ratios;
      for (auto algorithm : {AllreduceAlgorithm::Ring, AllreduceAlgorithm::RecursiveDoubling,
                             AllreduceAlgorithm::Rabenseifner}) {
        AllreduceOptions o;
        o.algorithm = algorithm;
        o.fidelity = Fidelity::Chunk;  // the real algorithm's messages
        o.allow_native = false;
        ratios.push_back(time_collective(rt, reps, [&] { allreduce_sum(comm, world_group, data, bytes, o); }) /
                         native);
      }
      ratios.push_back(partial(comm, rt, bytes, ActivationPolicy::Solo, 0) / native);
      ratios.push_back(partial(comm, rt, bytes, ActivationPolicy::Majority, 0) / native);
      ratios.push_back(p >= 4 ? partial(comm, rt, bytes, ActivationPolicy::Solo, 4) / native : 0.0);
      if (rank == 0) {
        std::printf("%10.0f %10.3f ms |", bytes, native * 1e3);
        for (double r : ratios) std::printf(" %6.2fx", r);
        std::printf("\n");
      }
    }
    rt.quiet_barrier("MPI_Ibarrier (benchmark)");
  }
  MPI_Finalize();
  return 0;
}
