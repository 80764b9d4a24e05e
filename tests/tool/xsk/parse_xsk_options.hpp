// A benchmark's command line parsed as the tool parses it, for the option tests.
#pragma once

#include <xsk/xsk_options.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace xsk_options_test {

// Parses `args` as `afxdp <benchmark> args...`; throws what CLI11 throws.
inline afxdp::tool::XskOptions parse(afxdp::tool::Benchmark benchmark,
                                     std::vector<std::string> args) {
  CLI::App app{"test", "afxdp"};
  afxdp::tool::XskOptions options;
  afxdp::tool::add_xsk_subcommand(app, options, benchmark, "test");
  args.insert(args.begin(), afxdp::tool::benchmark_name(benchmark));
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector reversed
  app.parse(args);
  return options;
}

}  // namespace xsk_options_test
