// The MPI test binary's main: runs under mpirun (scripts/mpirun-local -np 4). Every rank runs every test; rank 0
// prints GoogleTest's usual output, the other ranks print only their failures, and the job fails if any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "validation/mpi/MpiEnvironment.hpp"

namespace {

// Prints a rank's failed assertions, prefixed with the rank, and nothing else.
class FailuresOnly final : public ::testing::EmptyTestEventListener {
 public:
  explicit FailuresOnly(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed())
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(), info.name());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  quorum::mpi::MpiEnvironment env(&argc, &argv);
  if (env.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly(env.rank()));
  }
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (env.rank() == 0 && any && !failed) std::fprintf(stderr, "some tests failed on other ranks (see above)\n");
  return any;
}
