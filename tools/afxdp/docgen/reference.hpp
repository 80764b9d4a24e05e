// The tool's reference: one man page per subcommand, afxdp(8), and the bash completion, all
// written from the CLI11 definitions the tool parses with, so that an option cannot be missing
// from its page or its completion. afxdp-docgen (main.cpp) writes them at build time; the pure
// functions here are what the unit test checks.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

namespace afxdp::tool::docgen {

// What the option definitions do not say: a longer description and examples, per subcommand.
struct PageText {
  std::string description;                                    // paragraphs, separated by "\n\n"
  std::vector<std::pair<std::string, std::string>> examples;  // command, what it does
};
// The text for `name`; a subcommand without an entry gets its --help line and a --help example.
PageText page_text(const CLI::App& command);

// The subcommands in help order, with `demo_parent`'s demo (the options afxdp-demo parses) in
// place of the launcher `afxdp` has (which passes everything on unparsed).
std::vector<const CLI::App*> documented_commands(const CLI::App& app, const CLI::App& demo_parent);

// "--interface" and "-i" of every option a user can give `command` (help included).
std::vector<std::string> option_names(const CLI::App& command);

// afxdp-NAME(8) and afxdp(8), in roff (man(7) macros).
std::string man_page(const CLI::App& command, const std::string& version);
std::string main_man_page(const CLI::App& app, const std::vector<const CLI::App*>& commands,
                          const std::string& version);

// The bash completion script: subcommands, their options, interface names after an option that
// takes an interface, file names after one that takes a file, the choices of an option that has
// a fixed set.
std::string bash_completion(const CLI::App& app, const std::vector<const CLI::App*>& commands);

}  // namespace afxdp::tool::docgen
