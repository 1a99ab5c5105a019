// quorum sweep end to end: a 2 algorithms x 3 node counts timing-only sweep, killed and resumed without redoing
// finished points; every notebook executed headless on it, and plots.py, producing the PNGs; failing points;
// shards and --collect; --mpi under mpirun; --trace.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "tests/support/Files.hpp"
#include "tests/support/Cli.hpp"
#include "tests/support/TestPaths.hpp"

namespace quorum {

using testing::fresh_path;
using testing::run_cli;

namespace {

namespace fs = std::filesystem;

// The acceptance sweep: quickstart's two algorithms (Allreduce-SGD, local SGD) on 4, 8 and 16 nodes, timing only.
std::string small_sweep(int iterations) {
  return "sweep scenarios/quickstart.json --set math.model=none --set workload.iterations=" + std::to_string(iterations) +
         " --vary platform.nodes=4,8,16";
}

struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};

using testing::csv_cells;

// sweep.csv rows here hold no newlines (errors of these tests are one line).
Csv read_csv(const std::string& path) {
  Csv csv;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return csv;
  csv.header = csv_cells(line);
  while (std::getline(in, line)) {
    const auto cells = csv_cells(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < cells.size() && i < csv.header.size(); ++i) row[csv.header[i]] = cells[i];
    EXPECT_EQ(cells.size(), csv.header.size()) << line;
    csv.rows.push_back(row);
  }
  return csv;
}

std::vector<std::string> summaries_in(const std::string& out) {
  std::vector<std::string> found;
  if (!fs::exists(out + "/points")) return found;
  for (const auto& dir : fs::directory_iterator(out + "/points"))
    if (fs::exists(dir.path() / "summary.json")) found.push_back((dir.path() / "summary.json").string());
  return found;
}

// What identifies one write of a file: atomic writes replace the inode.
std::pair<ino_t, std::int64_t> identity(const std::string& path) {
  struct stat st{};
  ::stat(path.c_str(), &st);
  return {st.st_ino, static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

// Starts quorum with args (split on spaces) in the source tree, output to log; returns its pid.
pid_t start_quorum(const std::string& args, const std::string& log) {
  std::vector<std::string> words;
  std::istringstream in(args);
  for (std::string w; in >> w;) words.push_back(w);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(testing::source_dir().c_str()) != 0) ::_exit(126);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv;
    const std::string binary = testing::quorum_binary();
    argv.push_back(const_cast<char*>(binary.c_str()));
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

bool is_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  return in && std::string(magic + 1, 3) == "PNG" && fs::file_size(path) > 10000;
}

int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(SweepCommand, SmallSweepIsKilledResumedAndPlottedByEveryNotebook) {
  const std::string out = fresh_path("quorum-sweep");
  // Long enough points that the sweep can be killed between the first and the last one.
  const std::string args = small_sweep(3000) + " --out " + out;

  // 1. Start it one point at a time, kill it (SIGKILL: no chance to clean up) once a point has finished.
  const std::string log = fresh_path("quorum-sweep-log");
  const pid_t pid = start_quorum(args + " -j 1", log);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (summaries_in(out).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  // Its running point dies with it (no summary appears afterwards).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto finished = summaries_in(out);
  ASSERT_GE(finished.size(), 1u);
  ASSERT_LT(finished.size(), 6u) << "every point finished before the kill; make the points longer";
  std::map<std::string, std::pair<ino_t, std::int64_t>> before;
  for (const auto& s : finished) before[s] = identity(s);
  EXPECT_FALSE(fs::exists(out + "/sweep.csv"));

  // 2. Resume, two at a time: the finished points are skipped, not redone.
  const auto resumed = run_cli(args + " -j 2");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find(std::to_string(finished.size()) + " already done, " + std::to_string(6 - finished.size()) +
                             " to run"),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find("6/6 points done"), std::string::npos) << resumed.err;
  for (const auto& [path, id] : before) EXPECT_EQ(identity(path), id) << path << " was written again";
  EXPECT_EQ(summaries_in(out).size(), 6u);

  // 3. sweep.csv: one row per point, the varied fields, then the summary's numbers.
  const Csv csv = read_csv(out + "/sweep.csv");
  ASSERT_EQ(csv.rows.size(), 6u);
  const std::vector<std::string> leading = {"point", "algorithm.label", "platform.nodes", "status", "error", "dir"};
  ASSERT_GE(csv.header.size(), leading.size());
  EXPECT_EQ(std::vector<std::string>(csv.header.begin(), csv.header.begin() + 6), leading);
  for (const char* column : {"algorithm", "platform", "nodes", "ranks", "iterations", "imbalance",
                             "throughput_steps_per_s", "samples_per_s", "ideal_steps_per_s", "sim_time_s",
                             "wall_time_s", "mean_compute_s", "mean_comm_s", "mean_wait_s", "wait_fraction",
                             "final_test_accuracy", "algorithm.tau"})
    EXPECT_NE(std::find(csv.header.begin(), csv.header.end(), column), csv.header.end()) << column;
  std::set<std::pair<std::string, std::string>> points;
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("status"), "ok");
    EXPECT_EQ(row.at("error"), "");
    EXPECT_EQ(row.at("nodes"), row.at("platform.nodes"));
    EXPECT_EQ(row.at("algorithm"), row.at("algorithm.label"));
    EXPECT_EQ(row.at("iterations"), "3000");
    EXPECT_TRUE(fs::exists(out + "/" + row.at("dir") + "/summary.json")) << row.at("dir");
    const double throughput = std::stod(row.at("throughput_steps_per_s"));
    EXPECT_GT(throughput, 0.5);
    EXPECT_LE(throughput, std::stod(row.at("ideal_steps_per_s")) * (1 + 1e-9));
    points.insert({row.at("algorithm.label"), row.at("platform.nodes")});
  }
  EXPECT_EQ(points.size(), 6u);

  // 4. Every notebook, executed headless on this sweep, draws its figures.
  const std::string plots = fresh_path("quorum-notebook-plots"), executed = fresh_path("quorum-notebooks");
  const std::string notebooks = testing::source_dir() + "/notebooks";
  const int nb = shell("cd '" + notebooks + "' && QUORUM_SWEEP='" + out + "' QUORUM_PLOTS='" + plots +
                       "' PYDEVD_DISABLE_FILE_VALIDATION=1 jupyter nbconvert --to notebook --execute --output-dir '" +
                       executed + "' scaling.ipynb group_size_tau.ipynb time_to_accuracy.ipynb imbalance.ipynb " +
                       ">'" + executed + ".log' 2>&1");
  std::ifstream nblog(executed + ".log");
  ASSERT_EQ(nb, 0) << std::string(std::istreambuf_iterator<char>(nblog), {});
  const std::vector<std::string> figures = {"scaling", "group_size_tau", "time_to_accuracy", "imbalance_violin",
                                            "runtime_histogram"};
  for (const auto& f : figures) EXPECT_TRUE(is_png(plots + "/" + f + ".png")) << f;
  for (const char* book : {"scaling", "group_size_tau", "time_to_accuracy", "imbalance"})
    EXPECT_TRUE(fs::exists(executed + "/" + book + ".ipynb")) << book;

  // 5. The same figures without Jupyter.
  const std::string cli_plots = fresh_path("quorum-cli-plots");
  ASSERT_EQ(shell("/usr/bin/python3 '" + notebooks + "/plots.py' '" + out + "' --out '" + cli_plots + "' >/dev/null"), 0);
  for (const auto& f : figures) EXPECT_TRUE(is_png(cli_plots + "/" + f + ".png")) << f;

  for (const auto& p : {out, log, plots, executed, executed + ".log", cli_plots}) fs::remove_all(p);
}

TEST(SweepCommand, AFailingPointIsRecordedAndTheOthersFinish) {
  const std::string out = fresh_path("quorum-sweep-fail");
  const std::string args = "sweep scenarios/quickstart.json --set math.model=none --set workload.iterations=20 "
                           "--vary platform.nodes=4,0 --quiet -j 2 --out " + out;
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("FAILED"), std::string::npos) << r.err;
  const Csv csv = read_csv(out + "/sweep.csv");
  ASSERT_EQ(csv.rows.size(), 4u);
  for (const auto& row : csv.rows) {
    if (row.at("platform.nodes") == "0") {
      EXPECT_EQ(row.at("status"), "failed");
      EXPECT_NE(row.at("error").find("platform.nodes"), std::string::npos) << row.at("error");
      EXPECT_EQ(row.at("throughput_steps_per_s"), "");
      EXPECT_TRUE(fs::exists(out + "/" + row.at("dir") + "/failure.json"));
    } else {
      EXPECT_EQ(row.at("status"), "ok");
    }
  }
  // Run again: the finished points are skipped, the failed ones tried again.
  const auto again = run_cli(args);
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_NE(again.out.find("2 ok, 2 failed"), std::string::npos) << again.out;
  // A broken sweep definition is bad input: nothing runs.
  for (const std::string bad : {"--vary platform.nodes=4,8 --vary workload.iterations=1,2,3 --zip platform.nodes,workload.iterations",
                                "--shard 3/2", "--shard 0/2 --collect", "--vary platform.nodes"}) {
    const std::string bad_out = fresh_path("quorum-sweep-bad");
    const auto b = run_cli("sweep scenarios/quickstart.json --quiet " + bad + " --out " + bad_out);
    EXPECT_EQ(b.exit_code, 2) << bad << ": " << b.err;
    EXPECT_FALSE(fs::exists(bad_out)) << bad;
  }
  fs::remove_all(out);
}

// Varying algorithm.name on a scenario that lists algorithms replaces the list (issue: it used to cross the names
// with the list's labels, running 12 points of which 3 failed and some were mislabelled).
TEST(SweepCommand, VaryingTheAlgorithmNameOfAListGivesOnePointPerNameAndSize) {
  const std::string out = fresh_path("quorum-sweep-names");
  const auto r = run_cli("sweep scenarios/quickstart.json --vary algorithm.name=allreduce,local_sgd "
                         "--vary platform.nodes=4,8,16 --set math.model=none --set workload.iterations=5 --quiet "
                         "-j 2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Csv csv = read_csv(out + "/sweep.csv");
  ASSERT_EQ(csv.rows.size(), 6u);
  std::map<std::string, int> per_algorithm;
  for (const auto& row : csv.rows) {
    EXPECT_EQ(row.at("status"), "ok") << row.at("error");
    EXPECT_EQ(row.at("algorithm.name"), row.at("algorithm"));
    ++per_algorithm[row.at("algorithm")];
  }
  EXPECT_EQ(per_algorithm["allreduce"], 3);
  EXPECT_EQ(per_algorithm["local_sgd"], 3);
  fs::remove_all(out);
}

TEST(SweepCommand, ShardsRunTheirSliceAndCollectMergesThem) {
  const std::string out = fresh_path("quorum-sweep-shards");
  const std::string args = small_sweep(50) + " --quiet --out " + out;
  const auto first = run_cli(args + " --shard 0/2");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(summaries_in(out).size(), 3u);
  EXPECT_FALSE(fs::exists(out + "/sweep.csv"));  // shards leave the table to --collect
  const auto early = run_cli(args + " --collect");
  EXPECT_EQ(early.exit_code, 3);  // three points not run yet
  EXPECT_NE(early.out.find("3 not run yet"), std::string::npos) << early.out;
  ASSERT_EQ(run_cli(args + " --shard 1/2").exit_code, 0);
  const auto collected = run_cli(args + " --collect");
  EXPECT_EQ(collected.exit_code, 0) << collected.err;
  const Csv csv = read_csv(out + "/sweep.csv");
  ASSERT_EQ(csv.rows.size(), 6u);
  for (const auto& row : csv.rows) EXPECT_EQ(row.at("status"), "ok");
  fs::remove_all(out);
}

TEST(SweepCommand, MpiRanksShareTheSweepAndRankZeroWritesTheTable) {
  if (::access("/usr/bin/mpirun", X_OK) != 0) GTEST_SKIP() << "mpirun not installed";
  const std::string out = fresh_path("quorum-sweep-mpi");
  const std::string cmd = "cd '" + testing::source_dir() + "' && /usr/bin/mpirun --allow-run-as-root --oversubscribe "
                          "--mca pml ob1 --mca btl vader,self -np 2 '" + testing::quorum_binary() + "' " +
                          small_sweep(50) + " --quiet --mpi --out " + out + " >'" + out + ".log' 2>&1";
  const int status = shell(cmd);
  std::ifstream log(out + ".log");
  const std::string text(std::istreambuf_iterator<char>(log), {});
  if (text.find("built without MPI") != std::string::npos) GTEST_SKIP() << "quorum was built without MPI";
  ASSERT_EQ(status, 0) << text;
  const Csv csv = read_csv(out + "/sweep.csv");
  ASSERT_EQ(csv.rows.size(), 6u) << text;
  for (const auto& row : csv.rows) EXPECT_EQ(row.at("status"), "ok");
  fs::remove_all(out);
  fs::remove(out + ".log");
}

TEST(SweepCommand, TraceWritesAChromeTracePerPoint) {
  const std::string out = fresh_path("quorum-sweep-trace");
  const auto r = run_cli(small_sweep(20) + " --quiet --trace --trace-ranks 0-1 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& summary : summaries_in(out)) {
    const fs::path dir = fs::path(summary).parent_path();
    std::ifstream in(dir / "trace.json");
    const auto trace = nlohmann::json::parse(in);
    std::set<int> pids;
    for (const auto& e : trace["traceEvents"]) pids.insert(e["pid"].get<int>());
    EXPECT_EQ(pids, (std::set<int>{0, 1})) << dir;
  }
  fs::remove_all(out);
}

}  // namespace quorum
