// quorum's side of the SMPI cross-check: the traffic patterns of traffic_patterns.h through quorum's own
// point-to-point machinery (SimComm's isend/irecv on mailboxes) on the platform the scenario's C++ builder makes.
// Prints "PATTERN BYTES SECONDS" per pattern, as patterns.c does under smpirun (scripts/smpi-crosscheck joins them).
//
//   quorum_traffic_patterns SCENARIO.json [--set key=value ...] [--envelope BYTES] ring:65536 butterfly3:1048576
//
// --envelope adds that many bytes to every message's simulated size, as SMPI adds its 16-byte envelope (source,
// tag, communicator) to every payload: with --envelope 16 the two sides should agree to the last digits.
//
// Each pattern runs in its own simulation (a forked child: one SimGrid engine per process), every rank starting at
// simulated time 0; its time is when the last rank finished.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <vector>

#include "sim/model/ScenarioLoader.hpp"
#include "tests/bench/smpi/traffic_patterns.h"
#include "tests/support/SimHarness.hpp"

namespace {

using namespace quorum;

double pattern_seconds(const PlatformConfig& platform, const traffic_pattern& pattern, double envelope_bytes) {
  const double bytes = static_cast<double>(pattern.bytes) + envelope_bytes;
  const auto result = testing::run_simulated(platform, [&pattern, bytes](Comm& comm) {
    const Tag tag = tags::make(Channel::Benchmark);
    std::vector<int> peers(static_cast<std::size_t>(comm.size()));
    std::vector<RequestPtr> requests;
    const int sources = traffic_peers(&pattern, comm.rank(), comm.size(), 0, peers.data());
    for (int i = 0; i < sources; ++i) requests.push_back(comm.irecv(peers[static_cast<std::size_t>(i)], tag));
    const int destinations = traffic_peers(&pattern, comm.rank(), comm.size(), 1, peers.data());
    for (int i = 0; i < destinations; ++i)
      requests.push_back(comm.isend(peers[static_cast<std::size_t>(i)], tag, Payload{}, bytes));
    comm.wait_all(requests);
    return nlohmann::json();
  });
  if (!result.ok) throw std::runtime_error("simulation failed: " + result.error);
  return result.end_time;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The SMPI cross-check's traffic patterns on quorum's simulated platform"};
  std::string scenario;
  std::vector<std::string> sets, specs;
  int envelope = 0;
  app.add_option("scenario", scenario, "scenario JSON file (its platform block)")->required()->check(CLI::ExistingFile);
  app.add_option("--set", sets, "override a field by its dotted path")->type_name("KEY=VALUE");
  app.add_option("--envelope", envelope, "bytes added to every message (SMPI adds 16)")->check(CLI::Range(0, 1 << 20));
  app.add_option("patterns", specs, "ring:BYTES, butterflyD:BYTES, allpairs:BYTES")->required();
  CLI11_PARSE(app, argc, argv);

  std::vector<traffic_pattern> patterns;
  for (const auto& spec : specs) {
    traffic_pattern p{};
    char error[256];
    if (traffic_parse(spec.c_str(), &p, error, sizeof error) != 0) {
      std::cerr << "error: " << error << "\n";
      return 2;
    }
    patterns.push_back(p);
  }
  try {
    const PlatformConfig platform = load_scenario_runs(scenario, sets).front().scenario.platform;
    for (const auto& p : patterns) {
      char name[64];
      traffic_name(&p, name, sizeof name);
      std::printf("%s %lld %.17g\n", name, p.bytes, pattern_seconds(platform, p, envelope));
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
