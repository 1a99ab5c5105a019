#pragma once
// What the real math of a run needs, built once and shared read-only by all ranks: the proxy model, the training
// and test sets, the shared shuffle of the training set, and its partition into per-rank shards.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/data/DataPartition.hpp"
#include "kernels/data/Dataset.hpp"
#include "kernels/data/FashionMnist.hpp"
#include "kernels/data/SyntheticHyperplane.hpp"
#include "kernels/models/Model.hpp"
#include "kernels/optim/SgdOptimizer.hpp"

namespace quorum {

struct MathConfig {
  std::string model = "softmax";  // none | hyperplane | softmax | mlp | cnn
  std::int64_t batch = 128;       // samples per rank and step
  SgdConfig sgd{};
  std::string dataset_dir = kDefaultFashionMnistDir;
  std::int64_t hidden = 128;  // mlp hidden width
  std::int64_t conv1_channels = 8, conv2_channels = 16;  // cnn channel counts
  HyperplaneSpec hyperplane{};
  std::int64_t eval_every = 0;  // steps between evaluations of the averaged model; 0: only at the end
  PartitionConfig partition{};  // how the training set is shared out among the ranks
  // Time to target: the first evaluation of the averaged model at or past one of these (at most one is set).
  std::optional<double> target_accuracy, target_loss;
  // Threads that run the simulated ranks' math at once (0: one per core). Changes no result, only wall time.
  int threads = 0;
  bool enabled() const { return model != "none"; }
};

struct PartitionCache;

struct MathSetup {
  std::shared_ptr<const Model> model;  // null when math is off
  std::shared_ptr<const Dataset> train, test;
  std::vector<std::int64_t> permutation;  // shuffled training indices; iid: rank r's shard is block r of P
  // The model's initial parameters, which every rank starts from (Model::init of the seed), drawn once: each of a
  // thousand ranks drawing the same hundred thousand normals was an eighth of a run's start-up with the MLP. Empty
  // in a setup assembled by hand; a Trainer then draws them itself.
  std::vector<float> initial_params;
  MathConfig config;
  std::uint64_t seed = 1;
  bool enabled() const { return model != nullptr; }
  // The training set's partition among world_size ranks (config.partition), made on first use and kept: every
  // rank's Trainer asks for the same one. Thread-safe; copies of the setup share it. Throws std::invalid_argument
  // when the partition cannot be made (naming the math.partition field).
  std::shared_ptr<const DataPartition> partition(int world_size) const;
  std::shared_ptr<PartitionCache> partition_cache;
};

// One line per model, for `quorum list`.
struct ModelInfo {
  std::string name, description;
};
const std::vector<ModelInfo>& model_catalog();
// Whether the model trains on Fashion-MNIST (softmax, mlp, cnn), so that the scenario's math.dataset_dir applies.
bool uses_fashion_mnist(const std::string& model);

// Builds the model and loads or generates its data. Throws DatasetError when a data set cannot be read and
// std::invalid_argument for an unknown model name.
std::shared_ptr<const MathSetup> make_math_setup(const MathConfig& config, std::uint64_t seed);

}  // namespace quorum
