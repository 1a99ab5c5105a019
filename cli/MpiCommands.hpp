#pragma once
// The commands of the real backend, part of the quorum CLI when MPI is available:
//   quorum run SCENARIO --backend mpi [--out DIR]     under mpirun: the scenario for real on the job's ranks
//   quorum calibrate [--out FILE] [--scenario S]     under mpirun: latency, bandwidth, proxy step time
//   quorum validate SCENARIO --np N [--out DIR]      spawns mpirun: measured against predicted
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "validation/mpi/MpiEnvironment.hpp"

namespace quorum::cli {

int run_with_mpi_backend(const std::string& scenario_path, const std::vector<std::string>& sets,
                         const std::string& out, bool quiet);
void add_calibrate_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);

// Initialises MPI for a command run under mpirun; on failure prints the reason as the command's error and returns
// null (the command then exits with kExitFailure).
std::unique_ptr<mpi::MpiEnvironment> start_mpi_for_command();

}  // namespace quorum::cli
