// Wall time of one local step of every proxy model, single-threaded, on this CPU: loss and gradient of one
// mini-batch plus the SGD update, what every simulated rank pays per step when math is on. Models are built by
// make_math_setup as a scenario builds them (defaults: mlp hidden 128, cnn channels 8 and 16, hyperplane 8,192-dim;
// "cnn 4/8" is the cnn with math.conv1_channels = 4 and conv2_channels = 8);
// batches are the sizes the scenarios use (32, 128, 256). The classification models need Debian's
// dataset-fashion-mnist; without it they are skipped with a message.
//
//   build/tests/bench/quorum_bench --benchmark_filter=ProxyStep
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/MathSetup.hpp"

namespace {

const std::vector<std::string> kModels = {"hyperplane", "softmax", "mlp", "cnn", "cnn 4/8"};

// One setup per model for the whole program: loading Fashion-MNIST takes about a second.
std::shared_ptr<const quorum::MathSetup> setup_for(const std::string& name) {
  static std::map<std::string, std::shared_ptr<const quorum::MathSetup>> cache;
  auto& setup = cache[name];
  if (!setup) {
    quorum::MathConfig config;
    config.model = name.substr(0, name.find(' '));
    if (name == "cnn 4/8") {
      config.conv1_channels = 4;
      config.conv2_channels = 8;
    }
    setup = quorum::make_math_setup(config, 1);
  }
  return setup;
}

void ProxyStep(benchmark::State& state) {
  const std::string& name = kModels[static_cast<std::size_t>(state.range(0))];
  const std::int64_t batch_size = state.range(1);
  std::string why;
  if (name != "hyperplane" && !quorum::fashion_mnist_available(quorum::kDefaultFashionMnistDir, &why)) {
    state.SkipWithError(("Fashion-MNIST is not installed: " + why).c_str());
    return;
  }
  const auto setup = setup_for(name);
  const quorum::Model& model = *setup->model;
  std::vector<float> params(model.num_params()), grad(model.num_params());
  model.init(params, 1);
  quorum::Batch batch;
  const std::vector<std::int64_t> rows(setup->permutation.begin(), setup->permutation.begin() + batch_size);
  setup->train->gather(rows, batch);
  quorum::SgdConfig sgd;
  sgd.lr = 0.01;
  quorum::SgdOptimizer optimizer(sgd, params.size());
  std::int64_t step = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.loss_and_gradient(params, batch, grad));
    optimizer.apply(params, grad, step++);
    benchmark::ClobberMemory();
  }
  state.SetLabel(name + " batch=" + std::to_string(batch_size) + " params=" + std::to_string(model.num_params()));
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(batch_size), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(ProxyStep)
    ->ArgNames({"model", "batch"})
    ->ArgsProduct({{0, 1, 2, 3, 4}, {32, 128, 256}})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);
