#pragma once
// MPI calls return error codes (quorum sets MPI_ERRORS_RETURN on its communicators); check() turns a failure into
// an exception that names the call and carries MPI's own description.
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace quorum::mpi {

class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string error_string(int code);

inline void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw MpiError(std::string(what) + " failed: " + error_string(rc));
}

}  // namespace quorum::mpi
