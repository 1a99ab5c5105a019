// Per-layer gradient tables of the workload profiles and the bucketing of backward-pass overlap.
#include <gtest/gtest.h>

#include <numeric>

#include "algorithms/sgd/GradientBuckets.hpp"
#include "sim/model/WorkloadProfile.hpp"

namespace quorum {

TEST(GradientLayout, TablesSumToTheProfilesParametersAndShares) {
  int with_table = 0;
  for (const auto& p : workload_profiles()) {
    if (p.gradients.layers.empty()) continue;
    SCOPED_TRACE(p.name);
    ++with_table;
    std::int64_t parameters = 0;
    double shares = 0;
    for (const auto& l : p.gradients.layers) {
      parameters += l.parameters;
      shares += l.backward_share;
      EXPECT_GE(l.backward_share, 0) << l.name;
    }
    EXPECT_EQ(parameters, p.parameters);
    EXPECT_NEAR(shares, 1.0, 1e-12);
    EXPECT_DOUBLE_EQ(p.gradients.backward_fraction, 2.0 / 3.0);
  }
  EXPECT_GE(with_table, 6);  // both ResNet-50s, the Transformer, VGG-16, ResNet-18, ResNet-200
}

TEST(GradientLayout, LayersComeInBackwardOrder) {
  const auto& resnet = find_workload_profile("resnet50_p100")->gradients.layers;
  ASSERT_EQ(resnet.size(), 54u);  // 53 convolutions (4 of them shortcut projections) and the classifier
  EXPECT_EQ(resnet.front().name, "fc");
  EXPECT_EQ(resnet.front().parameters, 2048 * 1001 + 1001);
  EXPECT_EQ(resnet.back().name, "conv1");
  EXPECT_EQ(resnet.back().parameters, 7 * 7 * 3 * 64 + 2 * 64);
  // conv1: 2 x 7^2 x 3 x 64 x 112^2 FLOPs of the model's 8.18 G (2 x its 4.09 G multiply-adds).
  EXPECT_NEAR(resnet.back().backward_share, 2.0 * 49 * 3 * 64 * 112 * 112 / 8.178372608e9, 1e-9);
  const auto& transformer = find_workload_profile("transformer_p100")->gradients.layers;
  EXPECT_EQ(transformer.front().parameters, 0);  // the output projection: time first, its gradient comes last
  EXPECT_EQ(transformer.back().name, "embedding (shared)");
  EXPECT_EQ(transformer.back().parameters, 33'708 * 512);
}

TEST(GradientBuckets, FillUntilBucketBytesAndCutTheRealValuesInProportion) {
  GradientLayout layout;
  layout.layers = {{"a", 10, 0.1}, {"b", 10, 0.2}, {"c", 30, 0.3}, {"d", 10, 0.4}};
  // 4 bytes per parameter; a bucket closes once it holds at least 80 bytes: {a, b}, then {c}, then {d} (the rest).
  const auto b = make_gradient_buckets(layout, 240, 80, 12);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].first_layer, 0u);
  EXPECT_EQ(b[0].last_layer, 1u);
  EXPECT_DOUBLE_EQ(b[0].logical_bytes, 80);
  EXPECT_DOUBLE_EQ(b[1].logical_bytes, 120);
  EXPECT_DOUBLE_EQ(b[2].logical_bytes, 40);
  EXPECT_NEAR(b[0].backward_share, 0.3, 1e-15);
  // 12 real values: 20/60, 30/60 and 10/60 of them, tiling [0, 12).
  EXPECT_EQ(b[0].begin, 0u);
  EXPECT_EQ(b[0].end, 4u);
  EXPECT_EQ(b[1].begin, 4u);
  EXPECT_EQ(b[1].end, 10u);
  EXPECT_EQ(b[2].end, 12u);
  const auto parts = compute_parts(layout, b);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_NEAR(parts[0], 1.0 / 3, 1e-15);
  EXPECT_NEAR(std::accumulate(parts.begin(), parts.end(), 0.0), 1.0, 1e-15);
  // No table: the whole model is one bucket, whatever the bucket size.
  const auto one = make_gradient_buckets(GradientLayout{}, 4e6, 1, 5);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_DOUBLE_EQ(one[0].logical_bytes, 4e6);
  EXPECT_EQ(one[0].end, 5u);
}

}  // namespace quorum
