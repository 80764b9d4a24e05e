// The deterministic cost harness: instructions per frame of the Queue's verbs and of the peer
// loops, over testing::Loopback, counted by callgrind. Run it through scripts/cost, which starts
// valgrind and turns the dumps into a table (docs/benchmarks.md):
//
//   cost_harness [--batches N] [--warmup N] [cell...]     (no cell: all of them)
//
// Without valgrind it runs the same loops, counts nothing and prints what it would divide by.
#include "cells.hpp"
#include "meter.hpp"

#include <charconv>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace afxdp::cost {

// An empty counted region: what one measured() call's client requests cost, per call.
void calibrate_cell(const Run& run, const Select& select) {
  if (!select("calibrate")) return;
  Meter m("calibrate", run);
  std::uint32_t zero = 0;
  m.run([&](Meter& meter) { return meter.measured([&] { return zero; }) + meter.batch_size(); },
        [] { return std::uint64_t{0}; });
}

}  // namespace afxdp::cost

namespace {

std::uint32_t parse_count(std::string_view option, std::string_view text) {
  std::uint32_t n = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc{} || end != text.data() + text.size() || n == 0 || n > 10000000) {
    throw std::invalid_argument(std::string(option) + ": '" + std::string(text) +
                                "' is not a whole number from 1 to 10000000");
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) try {
  afxdp::cost::Run run;
  std::vector<std::string> cells;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--batches" || arg == "--warmup") && i + 1 < argc) {
      (arg == "--batches" ? run.batches : run.warmup) = parse_count(arg, argv[++i]);
    } else if (arg.starts_with("-")) {
      throw std::invalid_argument("usage: cost_harness [--batches N] [--warmup N] [cell...]");
    } else {
      cells.emplace_back(arg);
    }
  }
  const afxdp::cost::Select select(cells);
  afxdp::cost::calibrate_cell(run, select);
  afxdp::cost::queue_cells(run, select);
  afxdp::cost::raw_cells(run, select);
  afxdp::cost::libxdp_cells(run, select);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "cost_harness: %s\n", e.what());
  return 1;
}
