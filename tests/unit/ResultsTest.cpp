// Result files: atomic writes, iterations.csv, extra tables and histograms.
#include "sim/model/Results.hpp"
#include "sim/model/RunRecorder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "tests/support/Files.hpp"

namespace quorum {

namespace {
using testing::slurp;
std::string temp_dir(const std::string& stem) {
  const auto p = std::filesystem::temp_directory_path() / (stem + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  return p.string();
}
}  // namespace

TEST(Results, AtomicWriteLeavesNoTemporaryFile) {
  const std::string dir = temp_dir("quorum-atomic-");
  std::filesystem::create_directories(dir);
  write_file_atomic(dir + "/a.txt", "hello\n");
  write_file_atomic(dir + "/a.txt", "again\n");
  EXPECT_EQ(slurp(dir + "/a.txt"), "again\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  EXPECT_THROW(write_file_atomic(dir + "/missing/sub/a.txt", "x"), std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST(Results, RecorderTablesHistogramsAndIterationsAreWritten) {
  RunRecorder recorder("t", 2, 2, false);
  recorder.step_done({1, 0, 0.0, 0.5, 0.25, 0.125});
  recorder.step_done({0, 0, 0.0, 0.5, 0.25, 0.0});
  recorder.step_done({0, 1, 0.75, 0.5, 0.25, 0.0});
  recorder.step_done({1, 1, 0.75, 0.5, 0.25, 0.0});
  recorder.table_row("groups", {{"step", 0}, {"rank", 1}, {"group", 0}});
  recorder.table_row("groups", {{"step", 0}, {"rank", 0}, {"group", 0}});
  EXPECT_THROW(recorder.table_row("groups", {{"rank", 0}}), std::logic_error);
  recorder.histogram(0, "staleness", 0);
  recorder.histogram(1, "staleness", 2);
  recorder.histogram(1, "staleness", 2);
  recorder.sample(0, "contributors", 2);
  recorder.sample(1, "contributors", 4);
  EXPECT_TRUE(recorder.unfinished_ranks().empty());

  const std::string dir = temp_dir("quorum-results-");
  Scenario s;
  s.name = "t";
  s.iterations = 2;
  s.ranks = 2;
  const auto summary = make_summary(s, recorder, FinalEvaluation{}, 1.5, 0.1, "test");
  EXPECT_DOUBLE_EQ(summary["throughput_steps_per_s"].get<double>(), 2 / 1.5);
  EXPECT_DOUBLE_EQ(summary["mean_wait_s"].get<double>(), 0.125 / 4);
  EXPECT_EQ(summary["histograms"]["staleness"]["2"], 2);
  EXPECT_DOUBLE_EQ(summary["metrics"]["contributors"]["mean"].get<double>(), 3.0);
  EXPECT_TRUE(summary["final_test_accuracy"].is_null());
  write_results(dir, summary, recorder, true);
  EXPECT_EQ(slurp(dir + "/iterations.csv"),
            "rank,step,start_s,compute_s,comm_s,wait_s\n0,0,0,0.5,0.25,0\n0,1,0.75,0.5,0.25,0\n"
            "1,0,0,0.5,0.25,0.125\n1,1,0.75,0.5,0.25,0\n");
  EXPECT_EQ(slurp(dir + "/groups.csv"), "step,rank,group\n0,1,0\n0,0,0\n");
  EXPECT_TRUE(std::filesystem::exists(dir + "/summary.json"));
  std::filesystem::remove_all(dir);
}

// The tables' cells and iterations.csv's times are written as printf's %.10g and %.9g would write them (the files'
// format before they were written with std::to_chars), down to the exponents, signs and non-finite values.
TEST(Results, CsvNumbersAreWrittenAsPrintfWouldWriteThem) {
  const std::vector<double> values = {0.0, -0.0, 1.0, -1.5, 0.1, 1.0 / 3.0, 2.0 / 3.0, 1e-7, 6.03047619e-07,
                                      123456789012.0, 1e21, -2.5e-300, 5e-324, 1.7976931348623157e308, 0.6670370253,
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(), 9999999999.5, 0.00001,
                                      std::numeric_limits<double>::quiet_NaN()};
  auto printf_g = [](const char* format, double v) {
    char cell[64];
    std::snprintf(cell, sizeof cell, format, v);
    return std::string(cell);
  };
  RunRecorder recorder("t", static_cast<int>(values.size()), 1, false);
  std::string table = "a,b\n", iterations = "rank,step,start_s,compute_s,comm_s,wait_s\n";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i], w = values[values.size() - 1 - i];
    recorder.table_row("cells", {{"a", v}, {"b", w}});
    table += printf_g("%.10g", v) + "," + printf_g("%.10g", w) + "\n";
    recorder.step_done({static_cast<int>(i), 0, v, w, -v, w});
    iterations += std::to_string(i) + ",0," + printf_g("%.9g", v) + "," + printf_g("%.9g", w) + "," +
                  printf_g("%.9g", -v) + "," + printf_g("%.9g", w) + "\n";
  }
  const std::string dir = temp_dir("quorum-csv-numbers-");
  write_results(dir, nlohmann::json::object(), recorder, true);
  EXPECT_EQ(slurp(dir + "/cells.csv"), table);
  EXPECT_EQ(slurp(dir + "/iterations.csv"), iterations);
  std::filesystem::remove_all(dir);
}

// A step's end is timed when its last training rank finishes it, whatever order the ranks report in; a service rank
// is not waited for, and records replayed after the run (MPI's merge) time nothing.
TEST(Results, StepEndsAreTimedWhenTheirLastTrainingRankFinishes) {
  RunRecorder recorder("t", 3, 4, false);
  recorder.set_service_ranks({2});
  recorder.step_done({0, 0, 0.0, 0.5, 0.0, 0.0});
  recorder.step_done({0, 1, 0.5, 0.5, 0.0, 0.0});  // rank 0 runs ahead
  EXPECT_TRUE(recorder.step_end_wall_s().empty());
  EXPECT_FALSE(recorder.wall_s_per_step().has_value());
  recorder.step_done({1, 0, 0.0, 0.7, 0.0, 0.0});
  ASSERT_EQ(recorder.step_end_wall_s().size(), 1u);  // step 0 ended everywhere; step 1 waits for rank 1
  EXPECT_FALSE(recorder.wall_s_per_step().has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  recorder.step_done({1, 1, 0.7, 0.5, 0.0, 0.0});
  recorder.step_done({1, 2, 1.2, 0.5, 0.0, 0.0});
  ASSERT_EQ(recorder.step_end_wall_s().size(), 2u);
  const auto& ends = recorder.step_end_wall_s();
  EXPECT_GE(ends[1] - ends[0], 0.019);
  // The last step's end is timed unlike the others' and left out (RunRecorder.cpp): two ends give no speed yet.
  EXPECT_FALSE(recorder.wall_s_per_step().has_value());
  recorder.step_done({0, 2, 1.0, 0.5, 0.0, 0.0});
  ASSERT_EQ(recorder.step_end_wall_s().size(), 3u);
  ASSERT_TRUE(recorder.wall_s_per_step().has_value());
  EXPECT_DOUBLE_EQ(*recorder.wall_s_per_step(), ends[1] - ends[0]);
  recorder.step_done({0, 3, 1.5, 0.5, 0.0, 0.0});
  recorder.step_done({1, 3, 1.7, 0.5, 0.0, 0.0});
  ASSERT_EQ(recorder.step_end_wall_s().size(), 4u);
  EXPECT_TRUE(std::is_sorted(ends.begin(), ends.end()));
  EXPECT_DOUBLE_EQ(*recorder.wall_s_per_step(), (ends[2] - ends[0]) / 2);

  RunRecorder merged("t", 2, 2, false);
  merged.replaying_records();
  for (int rank = 0; rank < 2; ++rank)
    for (int step = 0; step < 2; ++step) merged.step_done({rank, step, 0.0, 0.5, 0.0, 0.0});
  EXPECT_TRUE(merged.step_end_wall_s().empty());
  EXPECT_FALSE(merged.wall_s_per_step().has_value());
}

}  // namespace quorum
