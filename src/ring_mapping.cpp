#include "ring_mapping.hpp"

#include <afxdp/detail/socket_option.hpp>

namespace afxdp::detail {

xdp_mmap_offsets mmap_offsets(int fd, const std::string& context) {
  return get_option<xdp_mmap_offsets>(fd, SOL_XDP, XDP_MMAP_OFFSETS, "XDP_MMAP_OFFSETS", context);
}

void make_umem_rings(int fd, std::uint32_t fill_size, std::uint32_t completion_size,
                     const std::string& context, MappedRing<FillRing>& fill,
                     MappedRing<CompletionRing>& completion) {
  set_option(fd, SOL_XDP, XDP_UMEM_FILL_RING, fill_size, "XDP_UMEM_FILL_RING", context);
  set_option(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, completion_size, "XDP_UMEM_COMPLETION_RING",
             context);
  const xdp_mmap_offsets offsets = mmap_offsets(fd, context);
  fill = map_ring<FillRing>(fd, offsets.fr, fill_size, sizeof(std::uint64_t),
                            static_cast<long>(XDP_UMEM_PGOFF_FILL_RING), "fill ring");
  completion = map_ring<CompletionRing>(fd, offsets.cr, completion_size, sizeof(std::uint64_t),
                                        static_cast<long>(XDP_UMEM_PGOFF_COMPLETION_RING),
                                        "completion ring");
}

}  // namespace afxdp::detail
