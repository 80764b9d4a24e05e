// Is a tx descriptor one the kernel will send? The kernel checks each descriptor it takes off the
// tx ring (net/xdp/xsk_queue.h, xp_aligned_validate_desc / xp_unaligned_validate_desc). One that
// fails is consumed all the same and counted in XDP_STATISTICS' tx_invalid_descs; whether its
// address also comes back on the completion ring depends on the kernel (docs/rings.md), so a
// sender that checks with this before submitting never has to guess.
//
// Header-only, pure: no syscalls. Any thread.
#pragma once

#include <linux/if_xdp.h>

#include <cstdint>

namespace afxdp {

// What the kernel checks a tx descriptor against: the registered UMEM's length (frame_count *
// frame_size, not the mapping, which hugepages round up), its chunk size and mode.
struct TxDescriptorRules {
  std::uint64_t umem_size = 0;
  std::uint32_t chunk_size = 4096;
  bool unaligned_chunks = false;
  bool multi_buffer = false;  // the socket is bound with XDP_USE_SG: XDP_PKT_CONTD is allowed
};

enum class TxDescriptorFault {
  none,
  zero_length,   // len == 0
  too_long,      // the data does not fit in one chunk (aligned: from its offset in the chunk)
  outside_umem,  // the data starts or ends past the UMEM
  options,       // options other than 0 (XDP_PKT_CONTD is allowed only where the socket is
                 // bound with XDP_USE_SG: `multi_buffer` above; tx metadata is not used here)
};

// The first rule `desc` breaks, in the kernel's order, or none.
constexpr TxDescriptorFault tx_descriptor_fault(const xdp_desc& desc,
                                                const TxDescriptorRules& rules) noexcept {
  if (desc.len == 0) return TxDescriptorFault::zero_length;
  if (!rules.unaligned_chunks) {
    // chunk_size is a power of two in aligned mode.
    const std::uint64_t offset = desc.addr & (std::uint64_t{rules.chunk_size} - 1);
    if (offset + desc.len > rules.chunk_size) return TxDescriptorFault::too_long;
    if (desc.addr >= rules.umem_size) return TxDescriptorFault::outside_umem;
  } else {
    if (desc.len > rules.chunk_size) return TxDescriptorFault::too_long;
    // base | offset << 48: the data starts at base + offset. Both parts are small enough that
    // neither the sum nor the end can wrap.
    const std::uint64_t start =
        (desc.addr & XSK_UNALIGNED_BUF_ADDR_MASK) + (desc.addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT);
    if (start >= rules.umem_size || desc.len > rules.umem_size - start) {
      return TxDescriptorFault::outside_umem;
    }
    // The kernel also refuses data that crosses into a page that is not contiguous with the
    // previous one in DMA space; that happens only in zero-copy mode and cannot be told here.
  }
  // XDP_PKT_CONTD (1 << 0, Linux 6.6 uapi) only on a multi-buffer socket.
  const std::uint32_t allowed = rules.multi_buffer ? 1U : 0U;
  if ((desc.options & ~allowed) != 0) return TxDescriptorFault::options;
  return TxDescriptorFault::none;
}

constexpr bool valid_tx_descriptor(const xdp_desc& desc, const TxDescriptorRules& rules) noexcept {
  return tx_descriptor_fault(desc, rules) == TxDescriptorFault::none;
}

}  // namespace afxdp
