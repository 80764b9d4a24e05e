// afxdp-demo: `afxdp demo` (afxdp execs it). It is an executable of its own because it builds a
// private test network (namespaces, veth pairs) that the installed `afxdp` does not link, and
// it measures that `afxdp`: every traffic source and application it runs is that binary.
#include "demo/demo.hpp"
#include "subcommands.hpp"

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) try {
  // The same app as `afxdp`'s, with `demo` alone in it: help and errors read as before.
  CLI::App app{"afxdp: AF_XDP benchmarks and tools", "afxdp"};
  app.require_subcommand(1);
  const std::vector<afxdp::tool::Subcommand> subcommands{afxdp::tool::add_demo_subcommand(app)};
  std::vector<std::string> args{"demo"};
  args.insert(args.end(), argv + 1, argv + argc);
  return afxdp::tool::parse_and_run(app, subcommands, std::move(args));
} catch (const std::exception& e) {
  // What parse_and_run does not catch: no memory for the setup, say.
  std::fprintf(stderr, "afxdp: %s\n", e.what());
  return 1;
}
