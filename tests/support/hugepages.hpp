// Hugepages for a test of the unaligned-chunk mode (-u), whose UMEM is mapped with MAP_HUGETLB |
// MAP_HUGE_2MB: reserves 2 MiB pages (/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)
// when fewer are free than needed, and puts the previous value back on every way out it can see:
// the destructor (an assertion that fails returns through it too), and SIGINT, SIGTERM, SIGHUP,
// SIGQUIT and SIGABRT (restored, then the signal takes its default course). What nothing can see
// (SIGKILL, a power cut) is undone by the next reservation: the previous value is written to a
// journal file before the count is raised, and a reservation that finds one restores it first.
// The journal lives in /run/afxdp-tests (root's, mode 0700) and is trusted only when root's with
// mode 0600, not a link, and no more than the pages reserved now; otherwise the reservation fails
// with the reason and leaves it alone.
//
// nr_hugepages is global, so holders are serialized: each takes an exclusive flock on the test
// binary itself for its lifetime, so two tests of this binary run in parallel by ctest never undo
// each other's reservation.
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
  [[nodiscard]] const std::string& failure() const noexcept { return failure_; }

  // Where the previous count waits while a reservation holds a raised one.
  static const char* journal_path() noexcept;
  // The 2 MiB page count, -1 when unreadable.
  static long pages_reserved() noexcept;

 private:
  int lock_fd_ = -1;
  bool changed_ = false;
  std::string failure_;
};

}  // namespace afxdp::test
