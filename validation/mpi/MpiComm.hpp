#pragma once
// The MPI backend of Comm. One handle per agent: the rank's main agent gets one, and every spawn() starts a thread
// with its own handle (its own wait accounting) on the same RankRuntime. Point-to-point operations go through the
// rank's ProgressEngine; tags map to MPI tags one to one (any-source tags are received with MPI_ANY_SOURCE);
// compute() runs the proxy math and sleeps what the seeded compute model prescribes.
#include <string>

#include "algorithms/comm/Comm.hpp"
#include "validation/mpi/RankRuntime.hpp"

namespace quorum::mpi {

// It is also its own NativeCollectives (the rank's MPI_Allreduce or NCCL path, when the run uses one).
class MpiComm final : public Comm, private NativeCollectives {
 public:
  MpiComm(RankRuntime& runtime, std::string agent);

  int rank() const override { return runtime_.rank(); }
  int size() const override { return runtime_.size(); }
  double now() const override { return runtime_.now(); }

  RequestPtr isend(int dst, Tag tag, Payload payload, double logical_bytes) override;
  void post(int dst, Tag tag, Payload payload, double logical_bytes) override;
  RequestPtr irecv(int src, Tag tag) override;
  bool test(const RequestPtr& request) override;
  void cancel(const RequestPtr& request) override;
  Message take(const RequestPtr& request) override;

  void sleep_for(double seconds) override;
  std::unique_ptr<Agent> spawn(const std::string& name, std::function<void(Comm&)> body) override;
  std::unique_ptr<Mutex> make_mutex() override;
  std::unique_ptr<ConditionVariable> make_condition_variable() override;
  NativeCollectives* native() override;
  void charge_reduction(double logical_bytes, std::size_t real_values) override;

  // A request for an operation started elsewhere (a native collective), so that waiting for it is accounted as
  // this agent's wait time.
  RequestPtr adopt(OperationPtr operation);
  RankRuntime& runtime() { return runtime_; }
  const std::string& agent() const { return agent_; }

 protected:
  void do_wait(const RequestPtr& request) override;
  std::size_t do_wait_any(std::span<const RequestPtr> requests) override;
  double do_compute(std::int64_t step, const std::function<void()>& math, std::span<const double> fractions,
                    const std::function<void(std::size_t)>& after_part) override;

 private:
  bool allreduce_sum(std::vector<float>& data, const Group& group, double logical_bytes, Channel channel) override;

  void check_peer(int peer, const char* what) const;
  double wire_bytes(double logical_bytes) const;

  RankRuntime& runtime_;
  std::string agent_;
  // Where charge_reduction sums the padding of received blocks: y += x over zeros, grown to the largest block.
  std::vector<float> padding_sum_, padding_received_;
};

}  // namespace quorum::mpi
