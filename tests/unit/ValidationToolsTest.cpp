// quorum validate's comparison of summaries and its launcher command lines.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "validation/calibrate/NativeSizes.hpp"
#include "validation/validate/Comparison.hpp"
#include "validation/validate/Launcher.hpp"

namespace quorum {

TEST(ValidationTools, NativeAllreduceIsTimedAtEachDoublingAndJustBelowIt) {
  const std::vector<double> defaults = {4096, 65536, 1 << 20, 4 << 20, 16 << 20};
  constexpr double kMiB = 1 << 20;
  // ResNet-50's 102 MB: 31, 32, 62 and 64 MiB (an MPI library's algorithm switch at a power of two falls between a
  // pair), then the model itself, in order.
  const auto large = calibration::native_sizes_for_model(defaults, 102236324);
  const std::vector<double> want = {4096,      65536,     kMiB,      4 * kMiB,  16 * kMiB,
                                    31 * kMiB, 32 * kMiB, 62 * kMiB, 64 * kMiB, 102236324};
  EXPECT_EQ(large, want);
  // A model the defaults cover adds itself only, and none twice.
  auto small = defaults;
  small.insert(small.begin() + 2, 300000);
  EXPECT_EQ(calibration::native_sizes_for_model(defaults, 300000), small);
  EXPECT_EQ(calibration::native_sizes_for_model(defaults, 4 << 20), defaults);
  EXPECT_EQ(calibration::native_sizes_for_model(defaults, 0), defaults);  // math off, no model size
}

TEST(ValidationTools, RowsCompareThroughputAndWait) {
  const nlohmann::json measured = {{"throughput_steps_per_s", 2.0}, {"mean_wait_s", 0.25}};
  const nlohmann::json predicted = {{"throughput_steps_per_s", 2.1}, {"mean_wait_s", 0.2}};
  const auto row = validation::compare_summaries("allreduce", measured, predicted);
  EXPECT_NEAR(row.relative_error, 0.05, 1e-12);
  EXPECT_NEAR(row.wait_error_s, -0.05, 1e-12);
  // Without an aggregate rate in the summaries, the throughput stands for it.
  EXPECT_NEAR(row.aggregate_relative_error, 0.05, 1e-12);
  const auto j = validation::row_json(row);
  for (const char* key : {"algorithm", "measured_steps_per_s", "predicted_steps_per_s", "relative_error",
                          "measured_mean_wait_s", "predicted_mean_wait_s", "measured_aggregate_steps_per_s",
                          "predicted_aggregate_steps_per_s", "aggregate_relative_error"})
    EXPECT_TRUE(j.contains(key)) << key;
  const std::string table = validation::format_validation_table({row});
  EXPECT_NE(table.find("+5.00%"), std::string::npos) << table;
}

TEST(ValidationTools, AsynchronousRowsAlsoCompareTheAggregateRate) {
  const nlohmann::json measured = {
      {"throughput_steps_per_s", 5.0}, {"aggregate_steps_per_s", 16.0}, {"mean_wait_s", 0.0}};
  const nlohmann::json predicted = {
      {"throughput_steps_per_s", 5.0}, {"aggregate_steps_per_s", 18.0}, {"mean_wait_s", 0.0}};
  const auto row = validation::compare_summaries("adpsgd", measured, predicted);
  EXPECT_NEAR(row.relative_error, 0.0, 1e-12);
  EXPECT_NEAR(row.aggregate_relative_error, 0.125, 1e-12);
  EXPECT_NEAR(validation::row_json(row).at("predicted_aggregate_steps_per_s").get<double>(), 18.0, 1e-12);
  EXPECT_NE(validation::format_validation_table({row}).find("+12.50%"), std::string::npos);
}

TEST(ValidationTools, LaunchersGetTheRankCount) {
  const auto local = validation::local_launcher(8);
  EXPECT_EQ(local.front(), "mpirun");
  EXPECT_EQ(local.back(), "8");
  EXPECT_NE(std::find(local.begin(), local.end(), "--oversubscribe"), local.end());
  EXPECT_EQ(std::find(local.begin(), local.end(), "--allow-run-as-root") != local.end(), ::geteuid() == 0);
  EXPECT_EQ(validation::parse_launcher("srun -n {np} --mpi=pmix", 16),
            (std::vector<std::string>{"srun", "-n", "16", "--mpi=pmix"}));
  EXPECT_EQ(validation::parse_launcher("mpirun --hostfile hosts", 4),
            (std::vector<std::string>{"mpirun", "--hostfile", "hosts", "-np", "4"}));
}

}  // namespace quorum
