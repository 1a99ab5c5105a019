// quorum: simulate (and validate) data-parallel SGD under stragglers. See README.md.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/Commands.hpp"
#ifdef QUORUM_HAVE_MPI
#include "cli/MpiCommands.hpp"
#endif
#include "sim/model/Version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"quorum: how WAGMA-SGD, eager-SGD, Prague, AD-PSGD, SGP, D-PSGD, local SGD and Allreduce-SGD behave "
               "on a given machine, at a given scale, with given stragglers"};
  app.set_version_flag("--version", std::string("quorum ") + quorum::kVersion);
  app.require_subcommand(1);
  int exit_code = quorum::cli::kExitOk;
  quorum::cli::add_run_command(app, exit_code);
  quorum::cli::add_list_command(app, exit_code);
  quorum::cli::add_sweep_command(app, exit_code);
  quorum::cli::add_trace_stats_command(app, exit_code);
  quorum::cli::add_platform_xml_command(app, exit_code);
#ifdef QUORUM_HAVE_MPI
  quorum::cli::add_calibrate_command(app, exit_code);
  quorum::cli::add_validate_command(app, exit_code);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return quorum::cli::kExitFailure;
  }
  return exit_code;
}
