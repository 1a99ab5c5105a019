#pragma once
// A scenario: what to simulate (or run for real). Parsed from JSON, with --set overrides, every field checked; the
// resolved form (defaults filled in, fits recorded) goes into summary.json. Field reference: scenarios/README.md.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/Algorithm.hpp"
#include "kernels/MathSetup.hpp"
#include "platforms/PlatformConfig.hpp"
#include "sim/model/ComputeModel.hpp"
#include "sim/model/Distribution.hpp"
#include "sim/model/MpiSettings.hpp"
#include "sim/model/ScenarioError.hpp"
#include "sim/model/StragglerModel.hpp"
#include "sim/model/TraceOptions.hpp"

namespace quorum {

struct Scenario {
  nlohmann::json resolved;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  std::string base_dir;  // relative file names in the scenario are resolved from here

  std::string platform_name;
  PlatformConfig platform;
  int nodes = 0;
  int ranks = 0;

  std::string workload_profile;
  std::int64_t iterations = 0;
  std::int64_t parameters = 0;  // floats per full-model message
  Distribution compute;

  StragglerSpec imbalance;

  std::string algorithm;
  AlgorithmParams algorithm_params;
  Fidelity fidelity = Fidelity::Phase;
  // control_messages: "unshared" (default) delivers messages of a few bytes at their route's latency and narrowest
  // bandwidth without entering the max-min system (sim/simgrid/ControlCouriers.hpp); "shared" makes every message a
  // flow that shares its links, the reference the unshared figures are checked against.
  bool unshared_control_messages = true;
  // data_messages: "direct" (default) matches every other message in quorum and shares the links by quorum's own
  // max-min flow model, the same CM02 sharing without SimGrid's activities (sim/model/FlowNetwork.hpp,
  // sim/simgrid/DirectFlows.hpp); "simgrid" makes them SimGrid communications, the reference. "direct" needs
  // control_messages "unshared"; under "shared" the default falls back to "simgrid".
  bool direct_data_messages = true;
  // flow_solve_window_s: under data_messages "direct", the most simulated time a change of the flows in flight waits
  // before the link shares are solved again, with the changes made meanwhile (FlowNetwork::set_solve_window). 0
  // (default): exact max-min shares at every instant.
  double flow_solve_window_s = 0;

  MathConfig math;

  bool write_iterations_csv = true;
  bool progress = true;
  bool write_final_params = false;  // output.final_params: every rank's final model as final_params.json

  MpiSettings mpi;  // how the MPI backend runs it (ignored by the simulator)
  TraceOptions trace;  // output.trace*: timeline (trace.json)

  RunSettings run_settings() const;
  ComputeModel compute_model() const;
};

// Reads a scenario file as JSON (ScenarioError on unreadable or malformed JSON).
nlohmann::json read_scenario_json(const std::string& path);
// Applies "dotted.path=value" (value parsed as JSON, else taken as a string). On a scenario whose algorithm is a
// list: algorithm[i].field sets entry i; algorithm.field sets the field on every entry whose algorithm takes it (a
// ScenarioError naming the entries if none does); algorithm.name=X replaces the list by one algorithm (the list's
// entry named X, with its parameters, if there is one).
void apply_override(nlohmann::json& scenario, const std::string& assignment);
// Whether the algorithm of an algorithm entry takes `field` (its own parameters, the common ones, or the label).
bool algorithm_entry_takes(const nlohmann::json& entry, const std::string& field);
// The algorithm named `name` as one scenario algorithm: the entry of that name in an algorithm list, with its
// parameters and without its label, or {"name": name} if the list has none.
nlohmann::json algorithm_entry_named(const nlohmann::json& list, const nlohmann::json& name);
// The value of a --set or --vary: JSON if it parses, else the text as a string.
nlohmann::json parse_override_value(const std::string& text);
// Sets the field at a dotted path (creating objects on the way).
void set_field(nlohmann::json& scenario, const std::string& path, nlohmann::json value);
// Parses one single-algorithm scenario (ScenarioLoader.hpp reads files, applies overrides and expands lists).
Scenario parse_scenario(const nlohmann::json& scenario, const std::string& base_dir);

}  // namespace quorum
