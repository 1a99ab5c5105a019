#include "tests/support/SimHarness.hpp"

#include <unistd.h>

#include <simgrid/s4u/Engine.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/RankRunner.hpp"

namespace quorum::testing {

ComputeModel constant_compute(double seconds, int ranks, StragglerSpec imbalance, std::uint64_t seed) {
  Distribution d;
  d.kind = Distribution::Kind::Constant;
  d.value = seconds;
  return ComputeModel(d, StragglerModel(std::move(imbalance), ranks, seed), seed);
}

EngineChildResult in_engine_child(const std::function<nlohmann::json()>& body) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("quorum-engine-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand())))
                               .string();
  const ChildResult child = run_in_child([&] {
    int argc = 2;
    std::string a0 = "quorum-test", a1 = "--log=root.thres:critical";
    char* argv[] = {a0.data(), a1.data(), nullptr};
    simgrid::s4u::Engine engine(&argc, argv);
    std::ofstream(path) << body().dump();
    return 0;
  });
  EngineChildResult r;
  if (child.exit_code != 0) {
    r.error = child.error_text.empty() ? "child died (signal " + std::to_string(child.signal) + ")" : child.error_text;
  } else {
    std::ifstream in(path);
    r.value = nlohmann::json::parse(in);
    r.ok = true;
  }
  std::filesystem::remove(path);
  return r;
}

PlatformConfig star(int ranks) {
  GenericConfig g;
  g.topology = "cluster";
  g.nodes = ranks;
  g.bandwidth_Bps = 10e9;
  g.latency_s = 1e-6;
  return g;
}

PlatformConfig one_switch(int nodes) {
  GenericConfig g;
  g.topology = "fat_tree";
  g.nodes = nodes;
  g.fat_tree_levels = 1;
  g.fat_tree_down = {static_cast<unsigned>(nodes)};
  g.fat_tree_up = {1};
  g.fat_tree_parallel = {1};
  g.bandwidth_Bps = 10e9;
  g.latency_s = 1e-6;
  return g;
}

HarnessResult run_simulated(const PlatformConfig& platform, const std::function<nlohmann::json(Comm&)>& program) {
  return run_simulated(platform, program, constant_compute(0.0, rank_count(platform)));
}

HarnessResult run_simulated(const PlatformConfig& platform, const std::function<nlohmann::json(Comm&)>& program,
                            const ComputeModel& compute, int math_threads, MessagePaths paths) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("quorum-harness-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand())))
                               .string();
  const ChildResult child = run_in_child([&] {
    std::vector<nlohmann::json> results(static_cast<std::size_t>(rank_count(platform)));
    try {
      const double end = run_ranks(
          platform, compute, [&](Comm& comm) { results[static_cast<std::size_t>(comm.rank())] = program(comm); },
          math_threads, paths);
      std::ofstream(path) << nlohmann::json{{"end", end}, {"ranks", results}}.dump();
      return 0;
    } catch (const std::exception& e) {
      report_error(e.what());
      return 3;
    }
  });
  HarnessResult r;
  if (child.exit_code != 0) {
    r.error = child.error_text.empty() ? "child died (signal " + std::to_string(child.signal) + ")" : child.error_text;
    std::filesystem::remove(path);
    return r;
  }
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  r.ok = true;
  r.end_time = j["end"].get<double>();
  for (const auto& x : j["ranks"]) r.per_rank.push_back(x);
  return r;
}

}  // namespace quorum::testing
