// quorum platform-xml SCENARIO [--set key=value ...] [--out FILE] [--hostfile FILE]: the scenario's platform as a
// SimGrid XML platform file (platforms/PlatformXml.hpp), for SMPI's smpirun and other SimGrid tools; the hostfile
// lists the host of every rank in rank order, as smpirun's -hostfile reads it.
#include <iostream>
#include <memory>

#include "cli/Commands.hpp"
#include "platforms/PlatformXml.hpp"
#include "sim/model/Results.hpp"
#include "sim/model/ScenarioLoader.hpp"

namespace quorum::cli {

namespace {

struct PlatformXmlOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string out;
  std::string hostfile;
};

int export_platform(const PlatformXmlOptions& o) {
  PlatformXml exported;
  try {
    // Every entry of an algorithm list runs on the same platform: the first one says which.
    const std::vector<ScenarioRun> runs = load_scenario_runs(o.scenario, o.sets);
    exported = platform_xml(runs.front().scenario.platform);
  } catch (const ScenarioError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const PlatformXmlError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  // Notes go to stderr: without --out, stdout carries the platform file alone.
  const std::string ranks = std::to_string(exported.rank_hosts.size()) + " ranks on hosts " +
                            exported.rank_hosts.front() + " .. " + exported.rank_hosts.back();
  if (!o.hostfile.empty()) {
    std::string lines;
    for (const auto& host : exported.rank_hosts) lines += host + "\n";
    write_file_atomic(o.hostfile, lines);
    std::cerr << "hostfile: " << o.hostfile << " (" << ranks << ")\n";
  }
  if (o.out.empty()) {
    std::cout << exported.text;
  } else {
    write_file_atomic(o.out, exported.text);
    std::cerr << "platform: " << o.out << " (" << ranks << ")\n";
  }
  return kExitOk;
}

}  // namespace

void add_platform_xml_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PlatformXmlOptions>();
  CLI::App* cmd = app.add_subcommand(
      "platform-xml", "Write the scenario's platform as a SimGrid XML platform file (for smpirun); piz_daint, generic "
                      "and localhost platforms");
  cmd->add_option("scenario", options->scenario, "scenario JSON file (only its platform block is exported)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", options->sets, "override a field by its dotted path, e.g. --set platform.nodes=256")
      ->type_name("KEY=VALUE");
  cmd->add_option("--out", options->out, "platform file to write (default: standard output)");
  cmd->add_option("--hostfile", options->hostfile, "also write the host of every rank, one a line, in rank order");
  cmd->callback([options, &exit_code] { exit_code = export_platform(*options); });
}

}  // namespace quorum::cli
