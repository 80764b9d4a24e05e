// The frame ledger, compiled in here whatever the build type: it must catch a frame used twice,
// a frame given from the wrong place, and an address outside the UMEM, and keep counts that
// always add up to the UMEM's frame count.
#ifndef AFXDP_FRAME_LEDGER
#define AFXDP_FRAME_LEDGER 1
#endif
#include <afxdp/frame_ledger.hpp>

#include <gtest/gtest.h>

#include <cstdint>

using afxdp::FrameLedger;
using afxdp::FramePlace;

TEST(FrameLedger, FramesStartFreeAndFollowTheirHandOvers) {
  FrameLedger ledger(8, 4096);
  EXPECT_EQ(ledger.count(FramePlace::free), 8U);
  ledger.move(0, FramePlace::free, FramePlace::fill);
  ledger.move(4096, FramePlace::free, FramePlace::fill);
  ledger.move(256, FramePlace::fill, FramePlace::application);  // rx: address with headroom
  ledger.move(0, FramePlace::application, FramePlace::tx);
  EXPECT_EQ(ledger.count(FramePlace::free), 6U);
  EXPECT_EQ(ledger.count(FramePlace::fill), 1U);
  EXPECT_EQ(ledger.count(FramePlace::tx), 1U);
  EXPECT_EQ(ledger.count(FramePlace::application), 0U);
  EXPECT_EQ(ledger.total(), 8U);
  EXPECT_EQ(ledger.errors(), 0U);
}

TEST(FrameLedger, AFrameGivenTwiceIsAnError) {
  FrameLedger ledger(4, 2048);
  ledger.move(2048, FramePlace::free, FramePlace::fill);
  ledger.move(2048, FramePlace::free, FramePlace::fill);  // already lent
  EXPECT_EQ(ledger.errors(), 1U);
  EXPECT_NE(ledger.first_error().find("frame 1"), std::string::npos) << ledger.first_error();
  EXPECT_NE(ledger.first_error().find("it is in fill"), std::string::npos);
  EXPECT_EQ(ledger.count(FramePlace::fill), 1U);  // the bad move changed nothing
  EXPECT_EQ(ledger.total(), 4U);
}

TEST(FrameLedger, AnAddressOutsideTheUmemIsAnError) {
  FrameLedger ledger(4, 2048);
  ledger.move(std::uint64_t{4} * 2048, FramePlace::fill, FramePlace::application);
  EXPECT_EQ(ledger.errors(), 1U);
  EXPECT_NE(ledger.first_error().find("outside the UMEM"), std::string::npos);
  EXPECT_EQ(ledger.count(FramePlace::free), 4U);
}

TEST(FrameLedger, OnlyTheFirstErrorIsKeptButAllAreCounted) {
  FrameLedger ledger(2, 2048);
  ledger.move(0, FramePlace::tx, FramePlace::free);
  ledger.move(2048, FramePlace::fill, FramePlace::free);
  EXPECT_EQ(ledger.errors(), 2U);
  EXPECT_NE(ledger.first_error().find("frame 0"), std::string::npos);
}
