// Mapping a ring the kernel created on an AF_XDP socket: one mmap at the ring's page offset,
// with producer/consumer/flags/descriptors at the offsets XDP_MMAP_OFFSETS reports.
#pragma once

#include <afxdp/xsk/umem.hpp>

#include <linux/if_xdp.h>
#include <sys/mman.h>

namespace afxdp::detail {

xdp_mmap_offsets mmap_offsets(int fd, const std::string& context);

template <class Ring>
MappedRing<Ring> map_ring(int fd, const xdp_ring_offset& offsets, std::uint32_t entries,
                          std::size_t entry_size, long page_offset, const char* what) {
  MappedRing<Ring> result;
  result.mapping = Mapping::map(offsets.desc + entries * entry_size, PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_POPULATE, fd, page_offset, what);
  std::byte* base = result.mapping.bytes();
  RingLayout layout;
  layout.producer = reinterpret_cast<std::uint32_t*>(base + offsets.producer);
  layout.consumer = reinterpret_cast<std::uint32_t*>(base + offsets.consumer);
  layout.flags = reinterpret_cast<std::uint32_t*>(base + offsets.flags);
  layout.entries = base + offsets.desc;
  layout.size = entries;
  result.ring = Ring(layout);
  return result;
}

// Create the fill and completion rings on `fd` and map them.
void make_umem_rings(int fd, std::uint32_t fill_size, std::uint32_t completion_size,
                     const std::string& context, MappedRing<FillRing>& fill,
                     MappedRing<CompletionRing>& completion);

}  // namespace afxdp::detail
