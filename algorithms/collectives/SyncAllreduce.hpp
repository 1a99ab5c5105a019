#pragma once
// Synchronous allreduce (element-wise sum over a group) on point-to-point messages: ring, recursive doubling and
// Rabenseifner, each at two fidelities.
//
// chunk: every message of the real algorithm (ring: 2(P-1) steps of 1/P of the vector).
// phase: one aggregated message per rank and phase carrying the same bytes over the same links (ring: one
//        reduce-scatter and one allgather message of (P-1)/P of the vector to the right neighbour), preceded by a
//        binomial reduce/broadcast of the real values with zero simulated size, which both delivers the exact sum
//        and holds the bulk transfer until the slowest member has arrived, as the real ring does. Recursive
//        doubling and Rabenseifner already send one message per rank and phase, so both fidelities coincide.
#include <string>
#include <vector>

#include "algorithms/comm/Comm.hpp"

namespace quorum {

enum class AllreduceAlgorithm { Ring, RecursiveDoubling, Rabenseifner };
enum class Fidelity { Chunk, Phase };

struct AllreduceOptions {
  AllreduceAlgorithm algorithm = AllreduceAlgorithm::Ring;
  Fidelity fidelity = Fidelity::Phase;
  bool allow_native = true;                  // let the backend use MPI_Allreduce/NCCL when it offers them
  Channel channel = Channel::SyncAllreduce;  // concurrent allreduces need distinct channels
};

// Sums data over group in place. data holds the real values (may be empty); logical_bytes is the simulated size of
// the whole vector. Every member must call it with the same group, options and data size.
void allreduce_sum(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes,
                   const AllreduceOptions& options);

void ring_allreduce(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes, Fidelity fidelity,
                    Channel channel);
void recursive_doubling_allreduce(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes,
                                  Channel channel);
void rabenseifner_allreduce(Comm& comm, const Group& group, std::vector<float>& data, double logical_bytes,
                            Channel channel);

// Binomial-tree reduce to the group's first member followed by a broadcast back, with zero simulated size per
// message unless logical_bytes is given: the phase-fidelity ring uses it to move the real values and to carry the
// dependency on every member. Posts its requests on an existing schedule so it overlaps other traffic.
class Schedule;
void tree_reduce_broadcast(Schedule& schedule, Comm& comm, const Group& group, std::vector<float>& data,
                           double logical_bytes, Channel channel);

// Names used in scenarios ("ring", "recursive_doubling", "rabenseifner"; "chunk", "phase").
const char* to_string(AllreduceAlgorithm a);
const char* to_string(Fidelity f);
bool parse_allreduce_algorithm(const std::string& s, AllreduceAlgorithm& out);
bool parse_fidelity(const std::string& s, Fidelity& out);

}  // namespace quorum
