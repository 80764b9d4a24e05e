// Every subcommand of the tool, one file each. add_all_commands registers them in help order.
#pragma once

#include "command.hpp"

#include <vector>

namespace afxdp::tool {

std::vector<Command> add_all_commands(CLI::App& app);

}  // namespace afxdp::tool
