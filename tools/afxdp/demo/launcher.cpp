#include "demo/launcher.hpp"

#include "common/sibling.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <system_error>
#include <unistd.h>

namespace afxdp::tool {

Subcommand add_demo_launcher(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("demo", demo_description);
  // afxdp-demo parses its own command line, --help included.
  sub->prefix_command();
  sub->allow_extras();
  sub->set_help_flag();
  return {sub, [sub] { return exec_demo(sub->remaining()); }};
}

int exec_demo(const std::vector<std::string>& args) {
  const std::optional<std::string> demo = find_sibling("afxdp-demo", AFXDP_DEMO_DIR);
  if (!demo) {
    std::fprintf(stderr,
                 "afxdp: demo: afxdp-demo is not installed (not next to afxdp, nor in %s)\n",
                 AFXDP_DEMO_DIR);
    return 2;
  }
  std::vector<std::string> argv{"afxdp-demo"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  raw.reserve(argv.size() + 1);
  for (std::string& arg : argv) raw.push_back(arg.data());
  raw.push_back(nullptr);
  if (const std::string self = own_path(); !self.empty()) ::setenv(tool_variable, self.c_str(), 1);
  std::fflush(stdout);
  ::execv(demo->c_str(), raw.data());
  throw std::system_error(errno, std::generic_category(), "execv(" + *demo + ")");
}

}  // namespace afxdp::tool
