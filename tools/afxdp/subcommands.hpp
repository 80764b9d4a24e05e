// The `afxdp` tool's subcommands. Each family adds its sub-app and options to the parent
// (binding them to an options struct it owns) and returns what to run once parsing succeeded;
// add_all_subcommands registers them in help order. Parsing stays pure (no syscalls) so that unit
// tests can parse argument lists.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace afxdp::tool {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the exit code; throws on failure (main prints one line)
};

// A subcommand of the usual shape: `add_options` adds it to `parent` bound to an options struct
// that the returned Subcommand owns, and `run` runs it with them once parsing succeeded.
template <class Options>
Subcommand subcommand_of(CLI::App& parent, CLI::App* (*add_options)(CLI::App&, Options&),
                         int (*run)(const Options&)) {
  auto options = std::make_shared<Options>();
  CLI::App* app = add_options(parent, *options);
  return {app, [options, run] { return run(*options); }};
}

// Runs `finish` (the checks that look at several options together) once parsing succeeded; its
// std::invalid_argument becomes CLI11's ValidationError: one line on stderr and exit 2.
template <class Finish>
void finish_after_parsing(CLI::App& app, Finish finish) {
  app.parse_complete_callback([finish] {
    try {
      finish();
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError(e.what());
    }
  });
}

std::vector<Subcommand> add_all_subcommands(CLI::App& app);

// Parses `args` (without the program's name) and runs the chosen subcommand; returns the exit code.
// Every failure is one line on stderr: 2 for a command line refused (an afxdp::ConfigError
// included, in the tool's flags), 1 for a failure running.
int parse_and_run(CLI::App& app, const std::vector<Subcommand>& subcommands,
                  std::vector<std::string> args);

}  // namespace afxdp::tool
