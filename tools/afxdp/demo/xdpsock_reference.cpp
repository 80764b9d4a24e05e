#include "demo/xdpsock_reference.hpp"

#include "demo/demo_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace afxdp::tool {
namespace {

// The numbers on a line, each with its thousands separators dropped ("1,081,574" -> 1081574).
std::vector<double> numbers_on(const std::string& line) {
  std::vector<double> found;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    std::string digits;
    for (const char c : word) {
      if (c != ',') digits += c;
    }
    try {
      std::size_t used = 0;
      const double value = std::stod(digits, &used);
      if (used == digits.size()) found.push_back(value);
    } catch (const std::exception&) {
    }
  }
  return found;
}

}  // namespace

std::vector<std::string> xdpsock_args(const DemoCell& cell, const std::string& interface,
                                      double seconds) {
  const char* benchmark = cell.benchmark == DemoBenchmark::rxdrop   ? "-r"
                          : cell.benchmark == DemoBenchmark::txpush ? "-t"
                                                                    : "-l";
  std::vector<std::string> args{benchmark, "-i", interface, "-q", "0"};
  if (cell.mode == DemoMode::skb) {
    args.push_back("-S");
  } else {
    args.insert(args.end(), {"-N", "-c"});
  }
  if (cell.poll) args.push_back("-p");
  if (cell.busy_poll) args.push_back("-B");
  const long whole = std::max(1L, std::lround(seconds));
  args.insert(args.end(), {"-d", std::to_string(whole)});
  return args;
}

bool xdpsock_rate(const std::string& out, const std::string& row, double& pps) {
  std::istringstream lines(out);
  std::string line;
  double seconds = 0, total = 0;
  bool in_block = false, counted = false;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "pps") {  // a block's header: "pps pkts <interval in s>"
      const std::vector<double> interval = numbers_on(line);
      in_block = interval.size() == 1;
      if (in_block) seconds += interval[0];
    } else if (in_block && first == row) {  // "<row> <pps> <total so far>"
      const std::vector<double> values = numbers_on(line);
      if (values.size() != 2) return false;
      total = values[1];
      counted = true;
    }
  }
  if (!counted || seconds <= 0) return false;
  pps = total / seconds;
  return true;
}

}  // namespace afxdp::tool
