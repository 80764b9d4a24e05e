#include "commands.hpp"

#include "demo.hpp"
#include "dump.hpp"
#include "gen.hpp"
#include "rxq_info.hpp"
#include "l2fwd.hpp"
#include "latency.hpp"
#include "rxdrop.hpp"
#include "txpush.hpp"
#include "udp_echo.hpp"

namespace afxdp::tool {

std::vector<Command> add_all_commands(CLI::App& app) {
  std::vector<Command> commands;
  commands.push_back(add_demo_command(app));
  commands.push_back(add_gen_command(app));
  commands.push_back(add_rxq_info_command(app));
  commands.push_back(add_rxdrop(app));
  commands.push_back(add_txpush(app));
  commands.push_back(add_l2fwd(app));
  commands.push_back(add_dump_command(app));
  commands.push_back(add_latency_command(app));
  commands.push_back(add_udp_echo_command(app));
  return commands;
}

}  // namespace afxdp::tool
