#pragma once
// Local SGD: tau local steps, then a synchronous allreduce averages the models (momentum buffers stay local).
// tau = 1 is the synchronous model-averaging baseline of the WAGMA paper (sec. 5.1).
#include "algorithms/Algorithm.hpp"

namespace quorum {

class LocalSgd final : public Algorithm {
 public:
  explicit LocalSgd(std::int64_t tau) : tau_(tau) {}
  void run(RankContext& ctx) override;
  static AlgorithmInfo info();

 private:
  std::int64_t tau_;
};

}  // namespace quorum
