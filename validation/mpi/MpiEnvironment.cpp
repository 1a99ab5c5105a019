#include "validation/mpi/MpiEnvironment.hpp"

#include <dlfcn.h>
#include <mpi.h>
#include <sys/prctl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "validation/mpi/FatalSignals.hpp"
#include "validation/mpi/MpiError.hpp"

namespace quorum::mpi {

std::string error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(len));
}

namespace {
// libsimgrid exports MPI_* too (its SMPI layer). If the executable's link order lets SimGrid's definitions win, every
// MPI call would go to the simulator: refuse clearly instead.
void check_mpi_symbols() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) != 0 && info.dli_fname != nullptr &&
      std::strstr(info.dli_fname, "simgrid") != nullptr)
    throw MpiError(std::string("MPI_Init_thread resolves to ") + info.dli_fname +
                   " (SimGrid's SMPI), not to Open MPI: link Open MPI before SimGrid (see CMakeLists.txt)");
}
}  // namespace

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
  check_mpi_symbols();
  // Emulated compute sleeps to an absolute deadline; the default 50 us timer slack would add to every step. Threads
  // created later (progress, agents, watchdog) inherit the setting.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  int provided = MPI_THREAD_SINGLE;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    throw MpiError("the MPI library provides thread level " + std::to_string(provided) +
                   ", but quorum's MPI backend needs MPI_THREAD_MULTIPLE (agents are threads); Open MPI 4.1 provides "
                   "it unless it was built without thread support");
  }
}

MpiEnvironment::~MpiEnvironment() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string MpiEnvironment::library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string v(text, static_cast<std::size_t>(len));
  while (!v.empty() && (v.back() == '\n' || v.back() == '\0' || v.back() == ' ')) v.pop_back();
  return v;
}

std::string MpiEnvironment::processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<std::size_t>(len));
}

bool all_ranks_agree(bool mine) {
  int in = mine ? 1 : 0, out = 0;
  check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce (agreement)");
  return out == 1;
}

void abort_job(const std::string& message, int exit_code) {
  mark_aborting();
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this is for libraries that do
}

}  // namespace quorum::mpi
