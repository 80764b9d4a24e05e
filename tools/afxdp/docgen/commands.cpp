#include "docgen/reference.hpp"

namespace afxdp::tool::docgen {

std::vector<const CLI::App*> documented_commands(const CLI::App& app, const CLI::App& demo_parent) {
  // Option groups are nameless sub-apps: only named ones are subcommands.
  const auto named = [](const CLI::App* sub) { return !sub->get_name().empty(); };
  std::vector<const CLI::App*> commands;
  for (const CLI::App* sub : app.get_subcommands(named)) {
    if (sub->get_prefix_command()) {  // the demo launcher: its options are afxdp-demo's
      for (const CLI::App* demo : demo_parent.get_subcommands(named)) {
        if (demo->get_name() == sub->get_name()) sub = demo;
      }
    }
    commands.push_back(sub);
  }
  return commands;
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

}  // namespace afxdp::tool::docgen
