// libFuzzer target: the tool's command line. The input is split at NUL bytes into arguments and
// parsed by the same CLI11 app `afxdp` builds; nothing is run. Any input must end in a parsed
// command or a CLI11 error (which main turns into one line), never a crash or another exception.
#include "subcommands.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"afxdp"};
  std::string current;
  for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (!current.empty()) args.push_back(current);
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (auto& arg : args) argv.push_back(arg.data());

  CLI::App app{"afxdp", "afxdp"};
  app.require_subcommand(1);
  const auto subcommands = afxdp::tool::add_all_subcommands(app);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Error&) {
    // Refused with a message: main prints it as one line. Anything else escaping parse() would
    // escape main's parse handler too, so it is left to crash the fuzzer.
  }
  return 0;
}
