#pragma once
// The scenario's "mpi" block: how `quorum run --backend mpi` (validation/) runs a scenario for real. The simulator
// ignores it (it is recorded in the resolved scenario all the same, so a summary says how a real run was set up),
// except native_allreduce: on a platform with a measured MPI_Allreduce (localhost, calibrated) the prediction
// charges that measurement exactly where the real run calls the library.
//
//   compute          emulate | real      emulate: after the proxy math, sleep until the step has taken the
//                                        workload profile's duration plus the straggler delay; real: the proxy
//                                        math's own time plus the injected straggler delay only
//   message_bytes    logical | payload   logical: pad every message (and native allreduce) to the size the
//                                        simulation charges (the workload's model size); payload: send only the
//                                        proxy's floats and the control ints
//   native_allreduce bool (true)         synchronous allreduces use MPI_Allreduce (or NCCL); false: the
//                                        algorithms' own point-to-point collectives, exactly as simulated
//   device           cpu | gpu           gpu: proxy math on the GPU and native allreduces over NCCL
//   timeout_s        number | "auto"     the watchdog ends a run that takes longer, naming the slowest rank and
//                                        its step; auto: a bound derived from the workload (below)
//   progress         auto | spin | sleep how an agent blocked on communication waits: spin drives MPI itself
//                                        without pause (a core per rank), sleep leaves it to the progress
//                                        thread (ranks share cores); auto: spin when the host has at least as
//                                        many cores as ranks on it
//   poll_interval_s  number (1e-4)       longest pause of a rank's progress thread between polls of MPI
//   fault            {rank, step, kind}  testing aid: make a rank hang, die (kill) or throw at a step
#include <cstdint>
#include <string>

namespace quorum {

class Fields;
struct Distribution;
struct StragglerSpec;

struct FaultInjection {
  int rank = -1;  // -1: none
  std::int64_t step = 0;
  std::string kind;  // hang | kill | throw
};

struct MpiSettings {
  std::string compute = "emulate";
  std::string message_bytes = "logical";
  bool native_allreduce = true;
  std::string device = "cpu";
  double timeout_s = 0;  // resolved (auto filled in)
  std::string progress = "auto";
  double poll_interval_s = 1e-4;
  FaultInjection fault;

  bool emulate() const { return compute == "emulate"; }
  bool pad_to_logical() const { return message_bytes == "logical"; }
  bool gpu() const { return device == "gpu"; }
};

// Upper estimate of one step's duration (compute plus straggler delay), for the automatic timeout.
double expected_step_upper_s(const Distribution& compute, const StragglerSpec& imbalance, int ranks);

// Parses the "mpi" object. The automatic timeout is 120 s + 5 x iterations x expected_step_upper_s.
MpiSettings parse_mpi_settings(Fields& fields, int ranks, std::int64_t iterations, const Distribution& compute,
                               const StragglerSpec& imbalance);

}  // namespace quorum
