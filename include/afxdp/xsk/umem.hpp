// A UMEM: one memory area cut into equal frames, registered with the kernel on an AF_XDP socket,
// with its fill and completion rings.
//
// Threading: the Umem's fill and completion rings belong to one thread (the one that drives the
// socket bound first, or every socket that shares its queue). Control calls are not hot-path.
//
// Lifetime: each Socket keeps a pointer to its Umem, so a Umem does not move and must outlive its
// Sockets. The kernel socket the UMEM is registered on is bound by the first Socket; when that
// Socket and every Socket sharing its queue are gone, the Umem releases it (so the kernel drops
// it from its XSKMAPs) and registers the area on a fresh one with new, empty fill and completion
// rings: frames lent on the old ones come back to the caller.
#pragma once

#include <afxdp/detail/mapping.hpp>
#include <afxdp/rings/ring.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <linux/if_xdp.h>

#include <cstdint>
#include <span>

namespace afxdp {

struct UmemConfig {
  std::uint32_t frame_count = 4096;
  std::uint32_t frame_size = 4096;  // 2048 or 4096; any size >= 2048 with unaligned_chunks
  std::uint32_t headroom = 0;       // bytes the kernel leaves free before each packet
  std::uint32_t fill_size = 2048;   // fill ring entries, a power of two
  std::uint32_t completion_size = 2048;
  bool unaligned_chunks = false;  // XDP_UMEM_UNALIGNED_CHUNK_FLAG (needs hugepages)
  bool hugepages = false;         // back the area with MAP_HUGETLB
};

// Throws afxdp::ConfigError naming the field and the rule; needs no kernel.
void validate(const UmemConfig& config);

// Hugepage-backed areas ask for 2 MiB pages explicitly (MAP_HUGE_2MB) whatever the system's
// default hugepage size, so that the length rounded here is the one mapped and unmapped.
inline constexpr std::uint64_t umem_hugepage_size = std::uint64_t{2} << 20;
// The bytes mapped for an area: frame_count * frame_size, rounded up to whole hugepages when
// config.hugepages is set.
std::uint64_t area_length(const UmemConfig& config) noexcept;
// The mmap(2) flags for the area.
int area_map_flags(const UmemConfig& config) noexcept;

// Does [addr, addr+len) lie inside an area of `size` bytes? Written so that no sum can wrap: a
// hostile descriptor near UINT64_MAX is refused, not folded back into the area.
inline bool area_contains(std::uint64_t size, std::uint64_t addr, std::uint32_t len) noexcept {
  return addr <= size && len <= size - addr;
}

// Descriptor addresses in unaligned-chunk mode (XDP_UMEM_UNALIGNED_CHUNK_FLAG), as the kernel
// writes and reads them (net/xdp/xsk_buff_pool.c, xsk_queue.h):
//   rx          base | offset << 48: base is the fill-ring address as given, offset the data's
//               distance from it (XDP_PACKET_HEADROOM plus the UMEM's headroom)
//   fill        the low 48 bits are the chunk's base, used as they are (not rounded to a frame)
//   tx          base | offset << 48 or a plain address; the data is at base + offset
//   completion  the tx address exactly as it was submitted
// In aligned mode an address is the area offset itself, and the kernel rounds a fill address
// down to its frame.

// The area offset a descriptor address stands for.
constexpr std::uint64_t resolve_address(std::uint64_t addr, bool unaligned_chunks) noexcept {
  if (!unaligned_chunks) return addr;
  return (addr & XSK_UNALIGNED_BUF_ADDR_MASK) + (addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT);
}

// ANDed with an address the kernel hands back (rx, completion), gives the address of its chunk:
// the one to put back on the fill ring. A mask in both modes, so recycling costs no branch:
// aligned, the frame's start (frame_size is a power of two there); unaligned, the base.
constexpr std::uint64_t chunk_mask(const UmemConfig& config) noexcept {
  return config.unaligned_chunks ? std::uint64_t{XSK_UNALIGNED_BUF_ADDR_MASK}
                                 : ~(std::uint64_t{config.frame_size} - 1);
}

// The address arithmetic of a UMEM area, over any memory laid out as one: Umem's own area, or
// one a test or benchmark maps (testing::Loopback's). Copyable; owns nothing.
class UmemView {
 public:
  UmemView(std::byte* area, std::uint64_t size, const UmemConfig& config) noexcept
      : area_(area), size_(size), config_(config) {}
  [[nodiscard]] const UmemConfig& config() const noexcept { return config_; }
  [[nodiscard]] std::byte* data(std::uint64_t addr) const noexcept { return area_ + addr; }
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  // The area offset a descriptor's address stands for. In unaligned-chunk mode the kernel puts
  // the offset of the data within its chunk in the upper 16 bits (XSK_UNALIGNED_BUF_OFFSET_SHIFT).
  [[nodiscard]] std::uint64_t resolve(std::uint64_t addr) const noexcept {
    return resolve_address(addr, config_.unaligned_chunks);
  }
  // The bytes a descriptor names, in either mode. Unchecked: for a descriptor from the kernel,
  // ask contains(resolve(desc.addr), desc.len) first.
  [[nodiscard]] std::span<std::byte> packet(const xdp_desc& desc) const noexcept {
    return {data(resolve(desc.addr)), desc.len};
  }
  // The fill-ring address of the chunk that holds `addr` (an rx or completion address).
  [[nodiscard]] std::uint64_t chunk_of(std::uint64_t addr) const noexcept {
    return addr & chunk_mask(config_);
  }
  // Does [addr, addr+len) lie inside the area?
  [[nodiscard]] bool contains(std::uint64_t addr, std::uint32_t len) const noexcept {
    return area_contains(size_, addr, len);
  }
  // May a loop act on this rx descriptor? A checked build asks whether its bytes lie inside the
  // area; Release trusts the kernel, as the Queue does (detail::checks_kernel), and this is `true`
  // at no cost. A loop that must never trust a descriptor asks contains() itself.
  [[nodiscard]] bool trusted(const xdp_desc& desc) const noexcept {
    if constexpr (detail::checks_kernel) return contains(resolve(desc.addr), desc.len);
    return true;
  }

 private:
  std::byte* area_;
  std::uint64_t size_;
  UmemConfig config_;
};

// A ring's mapping together with the ring built over it.
template <class Ring>
struct MappedRing {
  detail::Mapping mapping;
  Ring ring;
};

class Umem {
 public:
  explicit Umem(const UmemConfig& config);
  Umem(Umem&&) = delete;  // Sockets point at it: use std::unique_ptr<Umem> to hand one around
  Umem& operator=(Umem&&) = delete;
  Umem(const Umem&) = delete;
  Umem& operator=(const Umem&) = delete;
  ~Umem() = default;

  [[nodiscard]] const UmemConfig& config() const noexcept { return config_; }
  [[nodiscard]] std::span<std::byte> area() const noexcept { return {area_.bytes(), area_.size()}; }
  // The area's address arithmetic (resolve, packet, chunk_of, contains): see UmemView.
  [[nodiscard]] UmemView view() const noexcept { return {area_.bytes(), area_.size(), config_}; }
  [[nodiscard]] std::byte* data(std::uint64_t addr) const noexcept { return view().data(addr); }
  [[nodiscard]] std::uint64_t size() const noexcept { return area_.size(); }
  [[nodiscard]] std::uint64_t resolve(std::uint64_t addr) const noexcept {
    return view().resolve(addr);
  }
  [[nodiscard]] std::span<std::byte> packet(const xdp_desc& desc) const noexcept {
    return view().packet(desc);
  }
  [[nodiscard]] std::uint64_t chunk_of(std::uint64_t addr) const noexcept {
    return view().chunk_of(addr);
  }
  [[nodiscard]] bool contains(std::uint64_t addr, std::uint32_t len) const noexcept {
    return view().contains(addr, len);
  }

  FillRing& fill() noexcept { return fill_.ring; }
  CompletionRing& completion() noexcept { return completion_.ring; }

  // The AF_XDP socket the UMEM is registered on. The first Socket built on this Umem binds it;
  // once it and the Sockets sharing its queue are gone, this is a fresh, unbound one.
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }

 private:
  friend class Socket;
  // A new AF_XDP socket with the area registered on it and fresh fill/completion rings. The
  // constructor uses it, and Socket after a failed first bind: the kernel cannot take rings
  // back off a socket, so the old fd could never bind again.
  void open_registered();
  // Close the registered socket and its rings (releasing the kernel socket once nothing maps it)
  // and open a fresh one. Out of resources, the Umem is left without one; the next Socket retries.
  void reopen() noexcept;
  // A Socket that used the registered socket's fill and completion rings is gone; the last one
  // unbinds the Umem (reopen).
  void leave_home() noexcept;

  UmemConfig config_;
  detail::Mapping area_;
  UniqueFd fd_;
  MappedRing<FillRing> fill_;
  MappedRing<CompletionRing> completion_;
  // Which (ifindex, queue) the primary fd was bound to; 0/0 while unbound.
  bool bound_ = false;
  unsigned bound_ifindex_ = 0;
  std::uint32_t bound_queue_ = 0;
  // Live Sockets on the registered socket's rings: the first, and those sharing its queue.
  std::uint32_t home_users_ = 0;
};

}  // namespace afxdp
