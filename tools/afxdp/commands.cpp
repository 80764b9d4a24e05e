#include "commands.hpp"

namespace afxdp::tool {

std::vector<Command> add_all_commands(CLI::App& app) {
  std::vector<Command> commands;
  (void)app;
  return commands;
}

}  // namespace afxdp::tool
