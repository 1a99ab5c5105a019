#include "tests/mpi/MpiHarness.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "sim/model/ComputeModel.hpp"
#include "validation/mpi/MpiAllreduce.hpp"
#include "validation/mpi/MpiComm.hpp"
#include "validation/mpi/MpiError.hpp"
#include "validation/mpi/RankRecord.hpp"
#include "validation/mpi/Watchdog.hpp"

namespace quorum::testing {

int mpi_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int mpi_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

std::vector<nlohmann::json> allgather_json(const nlohmann::json& mine) {
  const auto gathered = mpi::gather_json(MPI_COMM_WORLD, 0, mine);
  std::vector<std::uint8_t> bytes;
  if (mpi_rank() == 0) bytes = nlohmann::json::to_cbor(nlohmann::json(gathered));
  int n = static_cast<int>(bytes.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  bytes.resize(static_cast<std::size_t>(n));
  MPI_Bcast(bytes.data(), n, MPI_BYTE, 0, MPI_COMM_WORLD);
  return nlohmann::json::from_cbor(bytes).get<std::vector<nlohmann::json>>();
}

bool all_ranks(bool mine) {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out == 1;
}

MpiHarnessResult run_on_ranks(const std::function<nlohmann::json(Comm&)>& program, const MpiHarnessOptions& o) {
  mpi::MpiWorld world;
  Distribution compute;
  compute.kind = Distribution::Kind::Constant;
  compute.value = o.compute_s;
  MpiSettings settings = o.settings;
  settings.timeout_s = o.timeout_s;
  // ctest runs the engine's suites once per wait mode (tests/CMakeLists.txt), whatever the machine would pick.
  if (const char* progress = std::getenv("QUORUM_TEST_MPI_PROGRESS")) settings.progress = progress;
  mpi::RankRuntime runtime(world, ComputeModel(compute, StragglerModel(o.imbalance, world.size(), o.seed), o.seed),
                           settings);
  runtime.set_slow_link_bandwidth(o.slow_link_Bps);
  if (settings.native_allreduce)
    runtime.set_native(
        std::make_unique<mpi::MpiAllreduce>(world.collectives(), settings.pad_to_logical(), o.cache_capacity));
  mpi::WatchdogOptions wd;
  wd.timeout_s = o.timeout_s;
  wd.label = "test";
  mpi::Watchdog watchdog(runtime, world.control(), wd);
  runtime.start_clock();
  nlohmann::json mine;
  std::string error;
  {
    mpi::MpiComm comm(runtime, "main");
    try {
      mine = program(comm);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (runtime.live_agents() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (runtime.live_agents() > 0 && error.empty())
    error = std::to_string(runtime.live_agents()) + " agents still running after the program returned";
  const double end = runtime.now();
  runtime.quiet_barrier("MPI_Ibarrier (end of the test program)");
  const nlohmann::json native = runtime.native() ? runtime.native()->stats() : nlohmann::json();
  runtime.shutdown();
  watchdog.stop();

  const auto all = allgather_json({{"result", mine}, {"error", error}, {"end", end}, {"native", native}});
  MpiHarnessResult r;
  r.ok = true;
  for (std::size_t i = 0; i < all.size(); ++i) {
    r.per_rank.push_back(all[i]["result"]);
    r.native_stats.push_back(all[i]["native"]);
    r.end_time = std::max(r.end_time, all[i]["end"].get<double>());
    const auto e = all[i]["error"].get<std::string>();
    if (!e.empty() && r.ok) {
      r.ok = false;
      r.error = "rank " + std::to_string(i) + ": " + e;
    }
  }
  return r;
}

}  // namespace quorum::testing
