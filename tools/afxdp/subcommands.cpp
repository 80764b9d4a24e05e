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

#include <afxdp/xsk/xdp_link.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>

namespace afxdp::tool {
namespace {

std::string in_tool_words(const XdpAttachConflict& conflict) {
  // The library's advice names its own fields (XdpLinkConfig::replace, ...), which no subcommand
  // has; the benchmarks, which have --force, say so themselves before this (xsk_run.cpp).
  std::string what = conflict.what();
  if (const auto advice = what.find("; detach it, or ask to replace it");
      advice != std::string::npos) {
    what = what.substr(0, advice) + "; detach it first";
  }
  return what;
}

}  // namespace

std::vector<Subcommand> add_all_subcommands(CLI::App& app) {
  std::vector<Subcommand> subcommands;
  subcommands.push_back(add_demo_launcher(app));
  subcommands.push_back(add_gen_subcommand(app));
  subcommands.push_back(add_rxq_info_subcommand(app));
  subcommands.push_back(add_rxdrop_subcommand(app));
  subcommands.push_back(add_txpush_subcommand(app));
  subcommands.push_back(add_l2fwd_subcommand(app));
  subcommands.push_back(add_dump_subcommand(app));
  subcommands.push_back(add_latency_subcommand(app));
  subcommands.push_back(add_udp_echo_subcommand(app));
  return subcommands;
}

int parse_and_run(CLI::App& app, const std::vector<Subcommand>& subcommands,
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
      for (const auto& subcommand : subcommands) {
        message += subcommand.app->get_name() + (&subcommand == &subcommands.back() ? ")" : ", ");
      }
    }
    std::fprintf(stderr, "afxdp: %s\n", message.c_str());
    return 2;
  }
  try {
    for (const auto& subcommand : subcommands) {
      if (subcommand.app->parsed()) return subcommand.run();
    }
    return 2;
  } catch (const ConfigError& e) {
    // The library refused a value from the command line (a queue the interface lacks).
    std::fprintf(stderr, "afxdp: %s\n", in_flags(e).c_str());
    return 2;
  } catch (const XdpAttachConflict& e) {
    std::fprintf(stderr, "afxdp: %s\n", in_tool_words(e).c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "afxdp: %s\n", e.what());
    return 1;
  }
}

}  // namespace afxdp::tool
