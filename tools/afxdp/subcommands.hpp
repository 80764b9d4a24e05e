// The `afxdp` tool's subcommands. Each family adds its sub-app and options to the parent
// (binding them to an options struct it owns) and returns what to run once parsing succeeded;
// add_all_commands registers them in help order. Parsing stays pure (no syscalls) so that unit
// tests can parse argument lists.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace afxdp::tool {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the exit code; throws on failure (main prints one line)
};

std::vector<Command> add_all_commands(CLI::App& app);

}  // namespace afxdp::tool
