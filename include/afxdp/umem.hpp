// A UMEM: one memory area cut into equal frames, registered with the kernel on an AF_XDP socket,
// with its fill and completion rings.
//
// Threading: the Umem's fill and completion rings belong to one thread (the one that drives the
// socket bound first, or every socket that shares its queue). Control calls are not hot-path.
#pragma once

#include <afxdp/detail/mapping.hpp>
#include <afxdp/detail/unique_fd.hpp>
#include <afxdp/ring.hpp>

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

// Throws std::invalid_argument naming the field and the rule; needs no kernel.
void validate(const UmemConfig& config);

// Does [addr, addr+len) lie inside an area of `size` bytes? Written so that no sum can wrap: a
// hostile descriptor near UINT64_MAX is refused, not folded back into the area.
inline bool area_contains(std::uint64_t size, std::uint64_t addr, std::uint32_t len) noexcept {
  return addr <= size && len <= size - addr;
}

// A ring's mapping together with the ring built over it.
template <class Ring>
struct MappedRing {
  detail::Mapping mapping;
  Ring ring;
};

class Umem {
 public:
  explicit Umem(const UmemConfig& config);
  Umem(Umem&&) noexcept = default;
  Umem& operator=(Umem&&) noexcept = default;
  ~Umem() = default;

  const UmemConfig& config() const noexcept { return config_; }
  std::span<std::byte> area() const noexcept { return {area_.bytes(), area_.size()}; }
  std::byte* data(std::uint64_t addr) const noexcept { return area_.bytes() + addr; }
  std::uint64_t size() const noexcept { return area_.size(); }
  // The area offset a descriptor's address stands for. In unaligned-chunk mode the kernel puts
  // the offset of the data within its chunk in the upper 16 bits (XSK_UNALIGNED_BUF_OFFSET_SHIFT).
  std::uint64_t resolve(std::uint64_t addr) const noexcept {
    if (!config_.unaligned_chunks) return addr;
    constexpr unsigned shift = 48;
    return (addr & ((std::uint64_t{1} << shift) - 1)) + (addr >> shift);
  }
  // Does [addr, addr+len) lie inside the area? For descriptors from the kernel (never trusted).
  bool contains(std::uint64_t addr, std::uint32_t len) const noexcept {
    return area_contains(area_.size(), addr, len);
  }

  FillRing& fill() noexcept { return fill_.ring; }
  CompletionRing& completion() noexcept { return completion_.ring; }

  // The AF_XDP socket the UMEM is registered on. The first Socket built on this Umem binds it.
  int fd() const noexcept { return fd_.get(); }

 private:
  friend class Socket;
  // A new AF_XDP socket with the area registered on it and fresh fill/completion rings. The
  // constructor uses it, and Socket after a failed first bind: the kernel cannot take rings
  // back off a socket, so the old fd could never bind again.
  void open_registered();

  UmemConfig config_;
  detail::Mapping area_;
  detail::UniqueFd fd_;
  MappedRing<FillRing> fill_;
  MappedRing<CompletionRing> completion_;
  // Which (ifindex, queue) the primary fd was bound to; 0/0 while unbound.
  bool bound_ = false;
  unsigned bound_ifindex_ = 0;
  std::uint32_t bound_queue_ = 0;
};

}  // namespace afxdp
