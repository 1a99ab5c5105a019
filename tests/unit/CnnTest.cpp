// The convolutional proxy (math.model: cnn): its building blocks (im2col and its adjoint, the fused max pool and
// ReLU), shapes and parameter count, seeded initialisation, the gradient of every layer against central finite
// differences, training on Fashion-MNIST, and the scenario's cnn options.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <thread>

#include "kernels/MathSetup.hpp"
#include "kernels/models/Cnn.hpp"
#include "kernels/models/ConvolutionOps.hpp"
#include "kernels/optim/SgdOptimizer.hpp"
#include "kernels/random/SeedStream.hpp"
#include "sim/model/Scenario.hpp"

namespace quorum {
namespace {

RowMatrix random_matrix(std::int64_t rows, std::int64_t cols, Rng& rng) {
  RowMatrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.normal());
  return m;
}

Batch random_images(int n, std::int64_t side, int classes, std::uint64_t seed) {
  Rng rng(seed);
  Batch b;
  b.x = random_matrix(n, side * side, rng);
  for (int i = 0; i < n; ++i) b.labels.push_back(static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(classes))));
  return b;
}

// The parameter blocks of Cnn's layout (Cnn.hpp), as [begin, end) offsets.
struct Block {
  const char* name;
  std::size_t begin, end;
};
std::vector<Block> blocks(const Cnn& m) {
  const auto taps = static_cast<std::size_t>(Cnn::kKernel * Cnn::kKernel);
  const auto c1 = static_cast<std::size_t>(m.conv1_channels()), c2 = static_cast<std::size_t>(m.conv2_channels());
  const auto f = static_cast<std::size_t>(m.features()), k = static_cast<std::size_t>(m.classes());
  std::vector<Block> out;
  std::size_t at = 0;
  for (auto [name, size] : std::vector<std::pair<const char*, std::size_t>>{
           {"conv1 kernel", taps * c1}, {"conv1 bias", c1}, {"conv2 kernel", taps * c1 * c2}, {"conv2 bias", c2},
           {"dense weights", f * k}, {"dense bias", k}}) {
    out.push_back({name, at, at + size});
    at += size;
  }
  return out;
}

// Finite differences on a few random coordinates of every layer. A step of h moves every pre-activation a little,
// and with hundreds of ReLUs and pool windows one of them often crosses its kink (where the loss is not
// differentiable): there the forward and backward one-sided differences disagree, and the coordinate proves nothing,
// so it is skipped. Elsewhere they agree and the gradient must match their mean (the central difference). Most
// coordinates of every layer must be checked, so the test cannot pass by skipping.
void expect_gradient_matches_finite_differences(const Cnn& model, std::vector<float> params, const Batch& batch) {
  std::vector<float> grad(params.size()), scratch(params.size());
  const double loss = model.loss_and_gradient(params, batch, grad);
  Rng pick(5);
  constexpr std::size_t kPerBlock = 12;
  for (const Block& block : blocks(model)) {
    SCOPED_TRACE(block.name);
    const std::size_t size = block.end - block.begin;
    std::size_t checked = 0, tried = 0;
    for (; tried < kPerBlock; ++tried) {
      const std::size_t i = block.begin + static_cast<std::size_t>(pick.below(size));
      // The loss is computed in float: h trades its rounding (about 1e-7 / h) against kinks crossed.
      const float h = 1e-3f, saved = params[i];
      params[i] = saved + h;
      const double up = model.loss_and_gradient(params, batch, scratch);
      params[i] = saved - h;
      const double down = model.loss_and_gradient(params, batch, scratch);
      params[i] = saved;
      // saved +- h in float is not exactly h away: divide by the steps actually taken.
      const double forward = (up - loss) / (static_cast<double>(saved + h) - saved);
      const double backward = (loss - down) / (saved - static_cast<double>(saved - h));
      const double tolerance = 1e-3 + 2e-2 * std::abs(forward + backward) / 2.0;
      if (std::abs(forward - backward) > tolerance) continue;  // a kink between saved - h and saved + h
      ++checked;
      EXPECT_NEAR(grad[i], (forward + backward) / 2.0, tolerance) << "coordinate " << i;
    }
    EXPECT_GE(checked, tried * 2 / 3) << "too many coordinates near a kink to check";
  }
}

}  // namespace

TEST(ConvolutionOps, Im2colCopiesEachPatchInKernelOrder) {
  // One 4x4 image with 2 channels, pixel (y, x, c) = 100 y + 10 x + c; 3x3 kernel: 2x2 output positions.
  const conv::Image shape{1, 4, 2};
  std::vector<float> image;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 2; ++c) image.push_back(static_cast<float>(100 * y + 10 * x + c));
  RowMatrix patches;
  conv::im2col(image.data(), shape, 3, patches);
  ASSERT_EQ(patches.rows(), 4);
  ASSERT_EQ(patches.cols(), 18);
  for (int oy = 0; oy < 2; ++oy)
    for (int ox = 0; ox < 2; ++ox)
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx)
          for (int c = 0; c < 2; ++c)
            EXPECT_EQ(patches(oy * 2 + ox, (ky * 3 + kx) * 2 + c), 100 * (oy + ky) + 10 * (ox + kx) + c);
}

TEST(ConvolutionOps, Col2imIsTheAdjointOfIm2col) {
  // <im2col(x), P> = <x, col2im(P)> for any x and P.
  Rng rng(3);
  const conv::Image shape{3, 9, 4};
  const RowMatrix x = random_matrix(shape.rows(), shape.channels, rng);
  RowMatrix patches, back;
  conv::im2col(x.data(), shape, 5, patches);
  const RowMatrix p = random_matrix(patches.rows(), patches.cols(), rng);
  conv::col2im(p, shape, 5, back);
  ASSERT_EQ(back.rows(), x.rows());
  ASSERT_EQ(back.cols(), x.cols());
  const double lhs = patches.cast<double>().cwiseProduct(p.cast<double>()).sum();
  const double rhs = x.cast<double>().cwiseProduct(back.cast<double>()).sum();
  // col2im sums up to 25 patch entries per pixel in float: allow that rounding, relative to the terms' size.
  const double magnitude = x.cast<double>().cwiseAbs().cwiseProduct(back.cast<double>().cwiseAbs()).sum();
  EXPECT_NEAR(lhs, rhs, 1e-6 * magnitude);
}

TEST(ConvolutionOps, MaxPoolReluPicksEachWindowsWinnerAndRoutesTheGradientBack) {
  // One 5x5 single-channel image (the odd last row and column are dropped): z(y, x) = y * 5 + x, negated in the
  // top-left window so that its maximum is negative and the ReLU zeroes it.
  const conv::Image shape{1, 5, 1};
  RowMatrix z(25, 1);
  for (int i = 0; i < 25; ++i) z(i, 0) = static_cast<float>(i);
  for (int i : {0, 1, 5, 6}) z(i, 0) = -1.0f - static_cast<float>(i);
  RowMatrix out;
  std::vector<std::int32_t> argmax;
  conv::max_pool_relu(z, shape, out, argmax);
  ASSERT_EQ(out.rows(), 4);
  EXPECT_EQ(out(0, 0), 0.0f);  // max is -1 (z at 0), rectified
  EXPECT_EQ(argmax[0], 0);
  EXPECT_EQ(out(1, 0), 8.0f);  // rows 0-1, columns 2-3: z = 2, 3, 7, 8
  EXPECT_EQ(argmax[1], 8);
  EXPECT_EQ(out(2, 0), 16.0f);
  EXPECT_EQ(out(3, 0), 18.0f);
  RowMatrix d_out(4, 1), d_z;
  d_out << 1.0f, 2.0f, 3.0f, 4.0f;
  conv::max_pool_relu_backward(d_out, out, argmax, shape, d_z);
  ASSERT_EQ(d_z.rows(), 25);
  RowMatrix expected = RowMatrix::Zero(25, 1);
  expected(8, 0) = 2.0f;
  expected(16, 0) = 3.0f;
  expected(18, 0) = 4.0f;  // the rectified window passes nothing back
  EXPECT_EQ(d_z, expected);
}

TEST(Cnn, ShapesAndParameterCountAreExact) {
  const Cnn fashion(28, 8, 16, 10);
  EXPECT_EQ(fashion.conv1_side(), 24);
  EXPECT_EQ(fashion.pool1_side(), 12);
  EXPECT_EQ(fashion.conv2_side(), 8);
  EXPECT_EQ(fashion.pool2_side(), 4);
  EXPECT_EQ(fashion.features(), 256);
  EXPECT_EQ(fashion.num_params(), 25u * 8 + 8 + 25 * 8 * 16 + 16 + 256 * 10 + 10);
  EXPECT_EQ(fashion.num_params(), 5994u);
  const Cnn small(20, 2, 3, 4);  // 20 -> 16 -> 8 -> 4 -> 2
  EXPECT_EQ(small.features(), 12);
  EXPECT_EQ(small.num_params(), 50u + 2 + 150 + 3 + 48 + 4);
  const Cnn odd(17, 1, 1, 2);  // 17 -> 13 -> 6 -> 2 -> 1
  EXPECT_EQ(odd.features(), 1);
  EXPECT_THROW(Cnn(15, 8, 16, 10), std::invalid_argument);
  EXPECT_THROW(Cnn(28, 0, 16, 10), std::invalid_argument);
  // A batch of the wrong image size is refused rather than read out of bounds.
  std::vector<float> params(fashion.num_params()), grad(fashion.num_params());
  EXPECT_THROW(fashion.loss_and_gradient(params, random_images(2, 20, 10, 1), grad), std::invalid_argument);
}

TEST(Cnn, InitIsDeterministicPerSeedWithZeroBiases) {
  const Cnn model(28, 8, 16, 10);
  std::vector<float> a(model.num_params(), 7.0f), b(model.num_params()), c(model.num_params());
  model.init(a, 42);
  model.init(b, 42);
  model.init(c, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (const Block& block : blocks(model)) {
    SCOPED_TRACE(block.name);
    const bool bias = std::string(block.name).find("bias") != std::string::npos;
    double sum_sq = 0.0;
    for (std::size_t i = block.begin; i < block.end; ++i) sum_sq += static_cast<double>(a[i]) * a[i];
    if (bias) {
      EXPECT_EQ(sum_sq, 0.0);
    } else {
      EXPECT_GT(sum_sq, 0.0);
    }
  }
}

TEST(Cnn, GradientOfEveryLayerMatchesFiniteDifferences) {
  const Cnn model(20, 3, 4, 5);
  std::vector<float> params(model.num_params());
  model.init(params, 3);
  // Non-zero biases, so that a wrong bias gradient cannot hide behind zero.
  Rng rng(8);
  for (const Block& block : blocks(model))
    if (std::string(block.name).find("bias") != std::string::npos)
      for (std::size_t i = block.begin; i < block.end; ++i) params[i] = static_cast<float>(0.1 * rng.normal());
  expect_gradient_matches_finite_differences(model, params, random_images(6, 20, 5, 4));
}

TEST(Cnn, GradientMatchesFiniteDifferencesOnAnOddImageSize) {
  // 21 -> 17 -> 8 (the pool drops a row and a column) -> 4 -> 2.
  const Cnn model(21, 2, 3, 3);
  std::vector<float> params(model.num_params());
  model.init(params, 9);
  expect_gradient_matches_finite_differences(model, params, random_images(4, 21, 3, 6));
}

TEST(Cnn, EvaluationInSlicesMatchesTheTrainingLoss) {
  // 600 samples: evaluate_batch runs them in slices of 256; the loss must be the whole batch's mean.
  const Cnn model(28, 4, 6, 10);
  std::vector<float> params(model.num_params()), grad(model.num_params());
  model.init(params, 1);
  const Batch batch = random_images(600, 28, 10, 2);
  const double loss = model.loss_and_gradient(params, batch, grad);
  const Evaluation e = model.evaluate_batch(params, batch);
  EXPECT_NEAR(e.loss, loss, 1e-6 * loss);
  ASSERT_TRUE(e.accuracy);
  EXPECT_GE(*e.accuracy, 0.0);
  EXPECT_LE(*e.accuracy, 1.0);
}

TEST(Cnn, ConcurrentCallsOnDifferentParametersAgreeWithSequentialOnes) {
  // Ranks may run their math on threads sharing one model: the model must keep no state between calls.
  const Cnn model(28, 8, 16, 10);
  const Batch batch = random_images(32, 28, 10, 5);
  std::vector<std::vector<float>> params(4, std::vector<float>(model.num_params()));
  for (std::size_t r = 0; r < params.size(); ++r) model.init(params[r], 100 + r);
  std::vector<std::vector<float>> sequential(4, std::vector<float>(model.num_params())), threaded = sequential;
  for (std::size_t r = 0; r < params.size(); ++r) model.loss_and_gradient(params[r], batch, sequential[r]);
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < params.size(); ++r)
    threads.emplace_back([&, r] {
      for (int repeat = 0; repeat < 3; ++repeat) model.loss_and_gradient(params[r], batch, threaded[r]);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(threaded, sequential);
}

TEST(Cnn, SgdOnFashionMnistLowersTheTestLoss) {
  std::string why;
  if (!fashion_mnist_available(kDefaultFashionMnistDir, &why)) GTEST_SKIP() << why;
  MathConfig config;
  config.model = "cnn";
  const auto setup = make_math_setup(config, 5);
  ASSERT_EQ(setup->model->name(), "cnn");
  ASSERT_EQ(setup->model->num_params(), 5994u);
  const Model& model = *setup->model;
  std::vector<float> params(model.num_params()), grad(model.num_params());
  model.init(params, 5);
  Batch test;
  std::vector<std::int64_t> idx(1000);
  std::iota(idx.begin(), idx.end(), 0);
  setup->test->gather(idx, test);
  const Evaluation before = model.evaluate_batch(params, test);

  SgdConfig sgd;
  sgd.lr = 0.05;
  SgdOptimizer optimizer(sgd, params.size());
  Batch batch;
  std::vector<std::int64_t> rows(64);
  for (int step = 0; step < 40; ++step) {
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = setup->permutation[step * rows.size() + i];
    setup->train->gather(rows, batch);
    model.loss_and_gradient(params, batch, grad);
    optimizer.apply(params, grad, step);
  }
  const Evaluation after = model.evaluate_batch(params, test);
  EXPECT_LT(after.loss, 0.6 * before.loss) << before.loss << " -> " << after.loss;
  EXPECT_GT(*after.accuracy, 0.6) << *before.accuracy << " -> " << *after.accuracy;
}

TEST(Cnn, ScenarioReadsTheChannelCountsAndRejectsBadOnes) {
  std::string why;
  if (!fashion_mnist_available(kDefaultFashionMnistDir, &why)) GTEST_SKIP() << why;
  auto scenario = [](const nlohmann::json& math) {
    return nlohmann::json{{"name", "t"},
                          {"platform", {{"name", "piz_daint"}, {"nodes", 4}}},
                          {"workload", {{"profile", "resnet50_p100"}, {"iterations", 2}}},
                          {"algorithm", {{"name", "allreduce"}}},
                          {"math", math}};
  };
  const Scenario defaults = parse_scenario(scenario({{"model", "cnn"}}), "");
  EXPECT_EQ(defaults.math.conv1_channels, 8);
  EXPECT_EQ(defaults.math.conv2_channels, 16);
  EXPECT_EQ(defaults.resolved["math"]["conv1_channels"], 8);
  const Scenario set = parse_scenario(scenario({{"model", "cnn"}, {"conv1_channels", 4}, {"conv2_channels", 6}}), "");
  EXPECT_EQ(set.math.conv1_channels, 4);
  EXPECT_EQ(set.math.conv2_channels, 6);
  EXPECT_EQ(make_math_setup(set.math, 1)->model->num_params(), 25u * 4 + 4 + 25 * 4 * 6 + 6 + 96 * 10 + 10);
  for (const auto& [math, field] : std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"model", "cnn"}, {"conv1_channels", 0}}, "math.conv1_channels"},
           {{{"model", "cnn"}, {"conv2_channels", 1000}}, "math.conv2_channels"},
           {{{"model", "cnn"}, {"conv2_channels", "many"}}, "math.conv2_channels"},
           {{{"model", "mlp"}, {"conv1_channels", 4}}, "math.conv1_channels"}}) {  // not an mlp option
    SCOPED_TRACE(math.dump());
    try {
      parse_scenario(scenario(math), "");
      ADD_FAILURE() << "accepted";
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

}  // namespace quorum
