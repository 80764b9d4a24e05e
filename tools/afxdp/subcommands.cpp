#include "subcommands.hpp"

#include "demo/demo.hpp"
#include "dump/dump.hpp"
#include "gen/gen.hpp"
#include "rxq_info/rxq_info.hpp"
#include "xsk/l2fwd.hpp"
#include "latency/latency.hpp"
#include "xsk/rxdrop.hpp"
#include "xsk/txpush.hpp"
#include "latency/udp_echo.hpp"

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
