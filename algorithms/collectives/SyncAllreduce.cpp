#include "algorithms/collectives/SyncAllreduce.hpp"

namespace quorum {

void allreduce_sum(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes,
                   const AllreduceOptions& options) {
  if (group.size() <= 1) return;
  if (options.allow_native && comm.native() != nullptr &&
      comm.native()->allreduce_sum(data, group, logical_bytes, options.channel))
    return;
  switch (options.algorithm) {
    case AllreduceAlgorithm::Ring:
      ring_allreduce(comm, group, data, logical_bytes, options.fidelity, options.channel);
      return;
    case AllreduceAlgorithm::RecursiveDoubling:
      recursive_doubling_allreduce(comm, group, data, logical_bytes, options.channel);
      return;
    case AllreduceAlgorithm::Rabenseifner:
      rabenseifner_allreduce(comm, group, data, logical_bytes, options.channel);
      return;
  }
}

const char* to_string(AllreduceAlgorithm a) {
  switch (a) {
    case AllreduceAlgorithm::Ring: return "ring";
    case AllreduceAlgorithm::RecursiveDoubling: return "recursive_doubling";
    case AllreduceAlgorithm::Rabenseifner: return "rabenseifner";
  }
  return "?";
}

const char* to_string(Fidelity f) { return f == Fidelity::Chunk ? "chunk" : "phase"; }

bool parse_allreduce_algorithm(const std::string& s, AllreduceAlgorithm& out) {
  for (auto a : {AllreduceAlgorithm::Ring, AllreduceAlgorithm::RecursiveDoubling, AllreduceAlgorithm::Rabenseifner})
    if (s == to_string(a)) {
      out = a;
      return true;
    }
  return false;
}

bool parse_fidelity(const std::string& s, Fidelity& out) {
  if (s == "chunk") out = Fidelity::Chunk;
  else if (s == "phase") out = Fidelity::Phase;
  else return false;
  return true;
}

}  // namespace quorum
