#include "tests/support/ScenarioHarness.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/simgrid/ChildProcess.hpp"
#include "sim/simgrid/Simulation.hpp"

namespace quorum::testing {

ScenarioResult simulate_scenario(const nlohmann::json& scenario) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("quorum-scenario-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand())))
                               .string();
  const ChildResult child = run_in_child([&] {
    Scenario s = parse_scenario(scenario, "");
    s.progress = false;
    SimulationOutput out = simulate(s);
    std::ofstream(path) << nlohmann::json{{"summary", out.summary}, {"params", out.final_params}}.dump();
    return 0;
  });
  ScenarioResult r;
  if (child.exit_code != 0) {
    r.error = child.error_text.empty() ? "child died (signal " + std::to_string(child.signal) + ")" : child.error_text;
    return r;
  }
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  r.ok = true;
  r.summary = j["summary"];
  r.final_params = j["params"].get<std::vector<std::vector<float>>>();
  return r;
}

}  // namespace quorum::testing
