// The cost harness's cells, by family: the Queue's verbs, the raw-ring examples' loops and
// libxdp's inline helpers in xdpsock's order, each over testing::Loopback.
#pragma once

#include "meter.hpp"

#include <string>
#include <vector>

namespace afxdp::cost {

// Which cells to run: all when no name was given.
class Select {
 public:
  explicit Select(std::vector<std::string> names) : names_(std::move(names)) {}
  bool operator()(const std::string& cell) const {
    if (names_.empty()) return true;
    for (const std::string& n : names_) {
      if (n == cell) return true;
    }
    return false;
  }

 private:
  std::vector<std::string> names_;
};

void calibrate_cell(const Run& run, const Select& select);
void queue_cells(const Run& run, const Select& select);
void raw_cells(const Run& run, const Select& select);
void libxdp_cells(const Run& run, const Select& select);

}  // namespace afxdp::cost
