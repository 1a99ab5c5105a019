// Gradients of the proxy models against finite differences, and the data sets they read.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <numeric>

#include "kernels/data/FashionMnist.hpp"
#include "kernels/data/SyntheticHyperplane.hpp"
#include "kernels/models/HyperplaneRegression.hpp"
#include "kernels/models/Mlp.hpp"
#include "kernels/models/ProductBlocking.hpp"
#include "kernels/models/SoftmaxRegression.hpp"
#include "kernels/random/SeedStream.hpp"

namespace quorum {
namespace {

Batch random_classification_batch(int n, int dim, int classes, std::uint64_t seed) {
  Rng rng(seed);
  Batch b;
  b.x.resize(n, dim);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < dim; ++j) b.x(i, j) = static_cast<float>(rng.normal());
  for (int i = 0; i < n; ++i) b.labels.push_back(static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(classes))));
  return b;
}

// Central differences in double-checked float: compare on a handful of coordinates.
void expect_gradient_matches(const Model& model, std::vector<float> params, const Batch& batch) {
  std::vector<float> grad(params.size());
  model.loss_and_gradient(params, batch, grad);
  std::vector<float> scratch(params.size());
  Rng pick(11);
  for (int t = 0; t < 25; ++t) {
    const auto i = static_cast<std::size_t>(pick.below(params.size()));
    const float h = 2e-3f;  // small: the ReLU's kink must not fall inside [x-h, x+h]
    const float saved = params[i];
    params[i] = saved + h;
    const double up = model.loss_and_gradient(params, batch, scratch);
    params[i] = saved - h;
    const double down = model.loss_and_gradient(params, batch, scratch);
    params[i] = saved;
    const double numeric = (up - down) / (2.0 * h);
    EXPECT_NEAR(grad[i], numeric, 1e-3 + 2e-2 * std::abs(numeric)) << "coordinate " << i;
  }
}

}  // namespace

TEST(Models, SoftmaxGradientMatchesFiniteDifferences) {
  SoftmaxRegression model(6, 4);
  std::vector<float> params(model.num_params());
  model.init(params, 3);
  for (auto& p : params) p += 0.1f;
  expect_gradient_matches(model, params, random_classification_batch(16, 6, 4, 1));
}

TEST(Models, MlpGradientMatchesFiniteDifferences) {
  Mlp model(5, 7, 3);
  std::vector<float> params(model.num_params());
  model.init(params, 3);
  expect_gradient_matches(model, params, random_classification_batch(12, 5, 3, 2));
}

// Eigen blocks a product's inner dimension by the L1 size it believes in, which changes the order of the additions:
// the reason a model fixes the sizes instead of taking the processor's.
TEST(Models, ProductBitsDependOnTheBlockingCacheSizes) {
  Rng rng(5);
  Eigen::MatrixXf a(128, 784), b(784, 64);
  for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = static_cast<float>(rng.normal());
  for (Eigen::Index i = 0; i < b.size(); ++i) b.data()[i] = static_cast<float>(rng.normal());
  set_fixed_product_blocking();
  const Eigen::MatrixXf fixed = a * b;
  Eigen::setCpuCacheSizes(64 * 1024, 512 * 1024, 32 * 1024 * 1024);  // an L1 of another processor
  const Eigen::MatrixXf other = a * b;
  set_fixed_product_blocking();  // as the other tests in this process expect them
  EXPECT_NE(std::memcmp(fixed.data(), other.data(), sizeof(float) * static_cast<std::size_t>(fixed.size())), 0);
  EXPECT_TRUE(fixed.isApprox(other, 1e-5f));  // the same product up to rounding
}

// It can fail only where no model was built before it in the process: ctest runs every test in a process of its own.
TEST(Models, AModelFixesTheProductBlockingWhateverTheProcessor) {
  const SoftmaxRegression model(784, 10);
  (void)model;
  // Without the fix these are the sizes CPUID gives (on one VM here: 32 KiB, 512 KiB, 256 MiB).
  EXPECT_EQ(Eigen::l1CacheSize(), kProductBlockingL1Bytes);
  EXPECT_EQ(Eigen::l2CacheSize(), kProductBlockingL2Bytes);
  EXPECT_EQ(Eigen::l3CacheSize(), kProductBlockingL3Bytes);
}

TEST(Models, HyperplaneGradientMatchesFiniteDifferences) {
  HyperplaneSpec spec;
  spec.dim = 8;
  spec.train_size = 64;
  const auto data = make_hyperplane_data(spec);
  HyperplaneRegression model(8);
  std::vector<float> params(model.num_params(), 0.3f);
  Batch b;
  std::vector<std::int64_t> idx(16);
  std::iota(idx.begin(), idx.end(), 0);
  data.train->gather(idx, b);
  expect_gradient_matches(model, params, b);
}

TEST(Models, HyperplaneDataIsReproducibleAndNoisyAroundThePlane) {
  HyperplaneSpec spec;
  spec.dim = 16;
  spec.noise_sd = 0.5;
  const auto a = make_hyperplane_data(spec), b = make_hyperplane_data(spec);
  Batch x, y;
  const std::vector<std::int64_t> idx = {0, 5, 17};
  a.train->gather(idx, x);
  b.train->gather(idx, y);
  EXPECT_EQ(x.x, y.x);
  EXPECT_EQ(x.targets, y.targets);
  // The true coefficients give a loss close to the noise variance.
  const auto& coef = dynamic_cast<const SyntheticHyperplane&>(*a.test).coefficients();
  HyperplaneRegression model(16);
  const Evaluation e = evaluate(model, coef, *a.test);
  EXPECT_NEAR(e.loss, 0.25, 0.03);
}

TEST(Models, FashionMnistLoadsFromDebianPackage) {
  std::string why;
  ASSERT_TRUE(fashion_mnist_available(kDefaultFashionMnistDir, &why))
      << why << " (scripts/install-deps installs dataset-fashion-mnist)";
  const auto data = load_fashion_mnist(kDefaultFashionMnistDir);
  EXPECT_EQ(data.train->size(), 60000);
  EXPECT_EQ(data.test->size(), 10000);
  EXPECT_EQ(data.train->dim(), 784);
  EXPECT_EQ(data.train->classes(), 10);
  Batch b;
  const std::vector<std::int64_t> idx = {0, 1, 59999};
  data.train->gather(idx, b);
  for (auto l : b.labels) {
    EXPECT_GE(l, 0);
    EXPECT_LT(l, 10);
  }
  // Standardised pixels: roughly zero mean over the first images.
  EXPECT_LT(std::abs(b.x.mean()), 0.5f);
}

TEST(Models, MissingDatasetDirectoryIsReported) {
  std::string why;
  EXPECT_FALSE(fashion_mnist_available("/nonexistent-dir", &why));
  EXPECT_NE(why.find("train-images-idx3-ubyte"), std::string::npos);
  EXPECT_THROW(load_fashion_mnist("/nonexistent-dir"), DatasetError);
}

}  // namespace quorum
