// What every Queue test checks after it acts: each frame is in one place, and the debug ledger
// (dev builds) saw no impossible move.
#pragma once

#include <afxdp/frame_ledger.hpp>
#include <afxdp/queue.hpp>

#include <gtest/gtest.h>

namespace queue_test {

inline void expect_accounted(const afxdp::Queue& q) {
  EXPECT_EQ(q.account().total(), q.frames());
  EXPECT_EQ(q.ledger().errors(), 0U) << q.ledger().first_error();
  if constexpr (afxdp::FrameLedger::enabled) {
    EXPECT_EQ(q.ledger().total(), q.frames());
  }
}

}  // namespace queue_test
