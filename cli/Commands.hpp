#pragma once
// Sub-commands of the quorum CLI. Each adds itself to the app; its callback stores the process exit status.
#include <CLI/CLI.hpp>

namespace quorum::cli {

// Exit statuses shared by all commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // unexpected failure
inline constexpr int kExitBadInput = 2;  // scenario or input error: nothing was written
inline constexpr int kExitRunFailed = 3; // the run itself failed (deadlock, crash of a rank)

void add_run_command(CLI::App& app, int& exit_code);
void add_list_command(CLI::App& app, int& exit_code);
void add_trace_stats_command(CLI::App& app, int& exit_code);
void add_sweep_command(CLI::App& app, int& exit_code);
void add_platform_xml_command(CLI::App& app, int& exit_code);

}  // namespace quorum::cli
