// The `afxdp` tool's subcommands. Each family adds its sub-app and options to the parent
// (binding them to an options struct it owns) and returns what to run once parsing succeeded;
// add_all_commands registers them in help order. Parsing stays pure (no syscalls) so that unit
// tests can parse argument lists.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace afxdp::tool {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the exit code; throws on failure (main prints one line)
};

std::vector<Command> add_all_commands(CLI::App& app);

// Parses `args` (without the program's name) and runs the chosen command; returns the exit code.
// Every failure is one line on stderr: 2 for a command line refused, 1 for a failure running.
int parse_and_run(CLI::App& app, const std::vector<Command>& commands,
                  std::vector<std::string> args);

}  // namespace afxdp::tool
