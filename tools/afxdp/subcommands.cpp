#include "subcommands.hpp"

#include "common/config_flags.hpp"
#include "demo/launcher.hpp"
#include "dump/dump.hpp"
#include "gen/gen.hpp"
#include "latency/latency.hpp"
#include "latency/udp_echo.hpp"
#include "rxq_info/rxq_info.hpp"
#include "xsk/l2fwd.hpp"
#include "xsk/rxdrop.hpp"
#include "xsk/txpush.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

namespace afxdp::tool {

std::vector<Command> add_all_commands(CLI::App& app) {
  std::vector<Command> commands;
  commands.push_back(add_demo_launcher(app));
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

int parse_and_run(CLI::App& app, const std::vector<Command>& commands,
                  std::vector<std::string> args) {
  const std::string first = args.empty() ? "" : args.front();
  std::reverse(args.begin(), args.end());  // CLI11 takes the last argument first
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --version and the like
    std::string message = e.what();
    // CLI11 calls a first word that names no subcommand a missing subcommand: name the word.
    if (!first.empty() && first[0] != '-' && app.get_subcommands().empty()) {
      message = "unknown subcommand '" + first + "' (";
      for (const auto& command : commands) {
        message += command.app->get_name() + (&command == &commands.back() ? ")" : ", ");
      }
    }
    std::fprintf(stderr, "afxdp: %s\n", message.c_str());
    return 2;
  }
  try {
    for (const auto& command : commands) {
      if (command.app->parsed()) return command.run();
    }
    return 2;
  } catch (const ConfigError& e) {
    // The library refused a value from the command line (a queue the interface lacks).
    std::fprintf(stderr, "afxdp: %s\n", in_flags(e).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "afxdp: %s\n", e.what());
    return 1;
  }
}

}  // namespace afxdp::tool
