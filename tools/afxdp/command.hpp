// How a subcommand plugs into the `afxdp` tool: it adds its sub-app and options to the parent
// (binding them to an options struct it owns) and returns what to run once parsing succeeded.
// Parsing stays pure (no syscalls) so that unit tests can parse argument lists.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace afxdp::tool {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the exit code; throws on failure (main prints one line)
};

}  // namespace afxdp::tool
