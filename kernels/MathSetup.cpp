#include "kernels/MathSetup.hpp"

#include <cmath>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "kernels/models/Cnn.hpp"
#include "kernels/models/HyperplaneRegression.hpp"
#include "kernels/models/Mlp.hpp"
#include "kernels/models/SoftmaxRegression.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {

namespace {
// The side of the square images of a data set with dim pixels (28 for Fashion-MNIST's 784).
std::int64_t image_side(std::int64_t dim) {
  const auto side = static_cast<std::int64_t>(std::lround(std::sqrt(static_cast<double>(dim))));
  if (side * side != dim)
    throw std::invalid_argument("model 'cnn' needs square images; the data set has " + std::to_string(dim) +
                                " pixels per sample");
  return side;
}
}  // namespace

bool uses_fashion_mnist(const std::string& model) { return model == "softmax" || model == "mlp" || model == "cnn"; }

// The last partition made, and for how many ranks.
struct PartitionCache {
  std::mutex mutex;
  int world_size = 0;
  std::shared_ptr<const DataPartition> partition;
};

std::shared_ptr<const DataPartition> MathSetup::partition(int world_size) const {
  if (!train) return std::make_shared<const DataPartition>();
  auto make = [&] {
    return std::make_shared<const DataPartition>(
        partition_training_set(config.partition, permutation, train->labels(), train->classes(), world_size, seed));
  };
  if (!partition_cache) return make();  // a setup assembled by hand
  std::lock_guard lock(partition_cache->mutex);
  if (!partition_cache->partition || partition_cache->world_size != world_size) {
    partition_cache->partition = make();
    partition_cache->world_size = world_size;
  }
  return partition_cache->partition;
}

const std::vector<ModelInfo>& model_catalog() {
  static const std::vector<ModelInfo> catalog = {
      {"none", "no math: timing-only run, fastest for sweeps"},
      {"hyperplane", "linear regression on synthetic 8,192-dim hyperplane data (eager-SGD paper sec. 7.2.1)"},
      {"softmax", "softmax regression on Fashion-MNIST (7,850 parameters)"},
      {"mlp", "two-layer ReLU perceptron on Fashion-MNIST (hidden width math.hidden, default 128)"},
      {"cnn", "two 5x5 conv layers (math.conv1_channels, conv2_channels: 8, 16), max pools, dense; Fashion-MNIST "
              "(5,994 parameters)"},
  };
  return catalog;
}

std::shared_ptr<const MathSetup> make_math_setup(const MathConfig& config, std::uint64_t seed) {
  auto setup = std::make_shared<MathSetup>();
  setup->config = config;
  setup->seed = seed;
  if (config.model == "none") return setup;
  if (config.model == "hyperplane") {
    HyperplaneSpec spec = config.hyperplane;
    spec.seed = seed;
    auto data = make_hyperplane_data(spec);
    setup->train = data.train;
    setup->test = data.test;
    setup->model = std::make_shared<HyperplaneRegression>(spec.dim);
  } else if (uses_fashion_mnist(config.model)) {
    auto data = load_fashion_mnist(config.dataset_dir);
    setup->train = data.train;
    setup->test = data.test;
    if (config.model == "softmax")
      setup->model = std::make_shared<SoftmaxRegression>(data.train->dim(), data.train->classes());
    else if (config.model == "mlp")
      setup->model = std::make_shared<Mlp>(data.train->dim(), config.hidden, data.train->classes());
    else
      setup->model = std::make_shared<Cnn>(image_side(data.train->dim()), config.conv1_channels,
                                           config.conv2_channels, data.train->classes());
  } else {
    throw std::invalid_argument("unknown model '" + config.model + "'");
  }
  if (config.partition.needs_labels() && setup->train->classes() == 0)
    throw std::invalid_argument("math.partition.kind: '" + config.partition.kind + "' partitions by label and model '" +
                                config.model + "' has no labels; use iid, or a classification model (softmax, mlp, cnn)");
  setup->partition_cache = std::make_shared<PartitionCache>();
  setup->initial_params.resize(setup->model->num_params());
  setup->model->init(setup->initial_params, seed);
  setup->permutation.resize(static_cast<std::size_t>(setup->train->size()));
  std::iota(setup->permutation.begin(), setup->permutation.end(), std::int64_t{0});
  Rng rng(seed, Stream::DataShard);
  shuffle(setup->permutation, rng);
  return setup;
}

}  // namespace quorum
