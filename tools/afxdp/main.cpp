// afxdp: AF_XDP benchmarks and tools. Parse the command line, then run the chosen subcommand.
// Every failure becomes one line on stderr and a non-zero exit.
#include "demo/launcher.hpp"
#include "subcommands.hpp"

#include <afxdp/version.hpp>
#include <bpf/libbpf.h>

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

int main(int argc, char** argv) try {
  std::vector<std::string> args(argv + 1, argv + argc);
  // git-style: the demo is its own executable, and everything after `demo` is its command line.
  if (!args.empty() && args.front() == "demo") {
    return afxdp::tool::exec_demo({args.begin() + 1, args.end()});
  }
  CLI::App app{"afxdp: AF_XDP benchmarks and tools", "afxdp"};
  app.require_subcommand(1);
  // The version of the library we run and of the libbpf we were linked against at run time.
  app.set_version_flag("--version", std::string("afxdp ") + afxdp::version_string + " (libbpf " +
                                        std::to_string(libbpf_major_version()) + "." +
                                        std::to_string(libbpf_minor_version()) + ")");
  const std::vector<afxdp::tool::Subcommand> subcommands = afxdp::tool::add_all_subcommands(app);
  return afxdp::tool::parse_and_run(app, subcommands, std::move(args));
} catch (const std::exception& e) {
  // What parse_and_run does not catch: a failed execv of afxdp-demo, or no memory for the setup.
  std::fprintf(stderr, "afxdp: %s\n", e.what());
  return 1;
}
