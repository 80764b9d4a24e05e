// afxdp: AF_XDP benchmarks and tools. Parse the command line, then run the chosen subcommand.
// Every failure becomes one line on stderr and a non-zero exit.
#include "subcommands.hpp"

#include <afxdp/version.hpp>
#include <bpf/libbpf.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  CLI::App app{"afxdp: AF_XDP benchmarks and tools", "afxdp"};
  app.require_subcommand(1);
  // The version of the library we run and of the libbpf we were linked against at run time.
  app.set_version_flag("--version", std::string("afxdp ") + afxdp::version_string + " (libbpf " +
                                        std::to_string(libbpf_major_version()) + "." +
                                        std::to_string(libbpf_minor_version()) + ")");
  const std::vector<afxdp::tool::Command> commands = afxdp::tool::add_all_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --version and the like
    std::string message = e.what();
    // CLI11 calls a first word that names no subcommand a missing subcommand: name the word.
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      message = std::string("unknown subcommand '") + argv[1] + "' (";
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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "afxdp: %s\n", e.what());
    return 1;
  }
}
