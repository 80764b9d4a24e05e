// afxdp-docgen DIR: writes DIR/man8/afxdp.8, DIR/man8/afxdp-SUBCOMMAND.8 and
// DIR/bash-completion/afxdp from the tool's option definitions (run at build time; not installed).
#include "demo/demo.hpp"
#include "docgen/reference.hpp"
#include "subcommands.hpp"

#include <afxdp/version.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::fprintf(stderr, "usage: afxdp-docgen DIR\n");
    return 2;
  }
  namespace docgen = afxdp::tool::docgen;
  const std::filesystem::path dir = argv[1];
  // The same apps `afxdp` and afxdp-demo build (main.cpp, demo/main.cpp).
  CLI::App app{"afxdp: AF_XDP benchmarks and tools", "afxdp"};
  app.set_version_flag("--version", "");
  [[maybe_unused]] const auto subcommands = afxdp::tool::add_all_subcommands(app);
  CLI::App demo_parent{"afxdp: AF_XDP benchmarks and tools", "afxdp"};
  [[maybe_unused]] const auto demo = afxdp::tool::add_demo_subcommand(demo_parent);
  const std::vector<const CLI::App*> documented = docgen::documented_commands(app, demo_parent);
  const std::string version = afxdp::version_string;
  write(dir / "man8/afxdp.8", docgen::main_man_page(app, documented, version));
  for (const CLI::App* command : documented) {
    write(dir / ("man8/afxdp-" + command->get_name() + ".8"), docgen::man_page(*command, version));
  }
  write(dir / "bash-completion/afxdp", docgen::bash_completion(app, documented));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "afxdp-docgen: %s\n", e.what());
  return 1;
}
