#pragma once
// A proxy model whose real optimisation math runs inside every simulated or real rank. Models are stateless: the
// parameters live in a flat float vector owned by the rank, which is what the collectives average.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "kernels/data/Dataset.hpp"

namespace quorum {

struct Evaluation {
  double loss = 0.0;
  std::optional<double> accuracy;  // classification only
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::string name() const = 0;
  virtual std::size_t num_params() const = 0;
  // Initial weights; every rank calls this with the same seed so all replicas start equal.
  virtual void init(std::span<float> params, std::uint64_t seed) const = 0;
  // Mean loss over the batch; writes its gradient with respect to params into grad.
  virtual double loss_and_gradient(std::span<const float> params, const Batch& batch, std::span<float> grad) const = 0;
  // Mean loss (and accuracy) over a batch, without gradient.
  virtual Evaluation evaluate_batch(std::span<const float> params, const Batch& batch) const = 0;

 protected:
  // Fixes Eigen's product blocking (ProductBlocking.hpp) before any model computes, so results match across machines.
  Model();
};

// Mean loss and accuracy over a whole data set, in chunks so memory stays bounded.
Evaluation evaluate(const Model& model, std::span<const float> params, const Dataset& data,
                    std::int64_t chunk = 2048);

}  // namespace quorum
