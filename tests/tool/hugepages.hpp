// Hugepages for a test of the unaligned-chunk mode (-u), whose UMEM is mapped with MAP_HUGETLB:
// reserves 2 MiB pages through /proc/sys/vm/nr_hugepages when fewer are free than needed, and
// always puts the previous value back when it goes out of scope (an assertion that fails returns
// through the destructor too).
//
// nr_hugepages is global, so holders are serialized: each takes an exclusive flock on the test
// binary itself for its lifetime, so two tests of this binary run in parallel by ctest never undo
// each other's reservation, and no lock file is left behind.
#pragma once

#include <string>

namespace afxdp::test {

class HugepageReservation {
 public:
  explicit HugepageReservation(long pages);
  ~HugepageReservation();
  HugepageReservation(const HugepageReservation&) = delete;
  HugepageReservation& operator=(const HugepageReservation&) = delete;

  // Empty when the pages are free; otherwise why not (for GTEST_SKIP).
  const std::string& failure() const noexcept { return failure_; }

 private:
  int lock_fd_ = -1;
  bool changed_ = false;
  long previous_ = 0;
  std::string failure_;
};

}  // namespace afxdp::test
