// The kernel's tx descriptor rules, case by case: the table of the kernel's ALIGNED_INV_DESC and
// UNALIGNED_INV_DESC selftests (which tests/lib/xsk_selftest also sends through a real kernel), and
// the boundaries of each rule.
#include <afxdp/detail/uapi.hpp>
#include <afxdp/rings/tx_descriptor.hpp>
#include <gtest/gtest.h>

#include <cstdint>

namespace {

using afxdp::tx_descriptor_fault;
using afxdp::TxDescriptorFault;
using afxdp::TxDescriptorRules;

constexpr std::uint64_t frames = 1024;

xdp_desc desc(std::uint64_t addr, std::uint32_t len, std::uint32_t options = 0) {
  return xdp_desc{addr, len, options};
}

TEST(TxDescriptor, AlignedRulesOfTheKernelsInvalidDescriptorCase) {
  const TxDescriptorRules rules{frames * 4096, 4096, false};
  const std::uint64_t size = rules.umem_size;
  EXPECT_EQ(tx_descriptor_fault(desc(0, 64), rules), TxDescriptorFault::none);
  EXPECT_EQ(tx_descriptor_fault(desc(UINT64_MAX - 1, 64), rules), TxDescriptorFault::too_long);
  EXPECT_EQ(tx_descriptor_fault(desc(4096, 9001), rules), TxDescriptorFault::too_long);
  EXPECT_EQ(tx_descriptor_fault(desc(size - 64, 64), rules), TxDescriptorFault::none);
  EXPECT_EQ(tx_descriptor_fault(desc(size, 64), rules), TxDescriptorFault::outside_umem);
  EXPECT_EQ(tx_descriptor_fault(desc(size - 32, 64), rules), TxDescriptorFault::too_long);
  EXPECT_EQ(tx_descriptor_fault(desc(0x1000 - 32, 64), rules), TxDescriptorFault::too_long);
  EXPECT_EQ(tx_descriptor_fault(desc(0x800 - 32, 64), rules), TxDescriptorFault::none);
}

TEST(TxDescriptor, AlignedTwoKFramesRefuseCrossingTheirBoundary) {
  const TxDescriptorRules rules{frames * 2048, 2048, false};
  EXPECT_EQ(tx_descriptor_fault(desc(0x800 - 32, 64), rules), TxDescriptorFault::too_long);
  EXPECT_EQ(tx_descriptor_fault(desc(0x800, 2048), rules), TxDescriptorFault::none);
  EXPECT_EQ(tx_descriptor_fault(desc(0x800, 2049), rules), TxDescriptorFault::too_long);
}

TEST(TxDescriptor, ZeroLengthAndOptionsRefused) {
  const TxDescriptorRules rules{frames * 4096, 4096, false};
  EXPECT_EQ(tx_descriptor_fault(desc(0, 0), rules), TxDescriptorFault::zero_length);
  EXPECT_EQ(tx_descriptor_fault(desc(0, 64, afxdp::uapi::xdp_pkt_contd), rules),
            TxDescriptorFault::options);
  EXPECT_EQ(tx_descriptor_fault(desc(0, 64, 0xffff), rules), TxDescriptorFault::options);
  EXPECT_FALSE(afxdp::valid_tx_descriptor(desc(0, 0), rules));
  EXPECT_TRUE(afxdp::valid_tx_descriptor(desc(4096 * 3 + 100, 1400), rules));
}

TEST(TxDescriptor, UnalignedMayCrossChunksButNotTheUmemsEnd) {
  const TxDescriptorRules rules{frames * 4001, 4001, true};
  const std::uint64_t size = rules.umem_size;
  EXPECT_EQ(tx_descriptor_fault(desc(0x1000 - 32, 64), rules), TxDescriptorFault::none);
  EXPECT_EQ(tx_descriptor_fault(desc(size - 64, 64), rules), TxDescriptorFault::none);
  EXPECT_EQ(tx_descriptor_fault(desc(size - 32, 64), rules), TxDescriptorFault::outside_umem);
  EXPECT_EQ(tx_descriptor_fault(desc(size, 64), rules), TxDescriptorFault::outside_umem);
  EXPECT_EQ(tx_descriptor_fault(desc(UINT64_MAX - 1, 64), rules), TxDescriptorFault::outside_umem);
  EXPECT_EQ(tx_descriptor_fault(desc(0, 4002), rules), TxDescriptorFault::too_long);
  EXPECT_EQ(tx_descriptor_fault(desc(0, 4001), rules), TxDescriptorFault::none);
}

TEST(TxDescriptor, UnalignedOffsetInTheUpperBitsCounts) {
  const TxDescriptorRules rules{frames * 4096, 4096, true};
  const std::uint64_t last = rules.umem_size - 4096;
  const std::uint64_t with_offset =
      last | (std::uint64_t{4096 - 64} << XSK_UNALIGNED_BUF_OFFSET_SHIFT);
  EXPECT_EQ(tx_descriptor_fault(desc(with_offset, 64), rules), TxDescriptorFault::none);
  EXPECT_EQ(tx_descriptor_fault(desc(with_offset, 65), rules), TxDescriptorFault::outside_umem);
}

}  // namespace
