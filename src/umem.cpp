#include <afxdp/detail/socket_option.hpp>
#include <afxdp/error.hpp>
#include <afxdp/xsk/umem.hpp>

#include "config_rule.hpp"
#include "ring_mapping.hpp"

#include <bit>
#include <cerrno>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>

namespace afxdp {
namespace {

using detail::require;

// MAP_HUGE_2MB: log2 of the page size in the bits above MAP_HUGE_SHIFT (uapi linux/mman.h).
constexpr int map_huge_2mb = 21 << MAP_HUGE_SHIFT;

detail::Mapping map_area(const UmemConfig& config) {
  try {
    return detail::Mapping::map(area_length(config), PROT_READ | PROT_WRITE, area_map_flags(config),
                                -1, 0, "UMEM area");
  } catch (const std::system_error& e) {
    if (config.hugepages && e.code().value() == ENOMEM) {
      throw std::system_error(e.code(),
                              "mmap(UMEM area, MAP_HUGETLB | MAP_HUGE_2MB): not enough 2 MiB "
                              "hugepages reserved (see "
                              "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)");
    }
    throw;
  }
}

}  // namespace

std::uint64_t area_length(const UmemConfig& config) noexcept {
  const std::uint64_t bytes = std::uint64_t{config.frame_count} * config.frame_size;
  if (!config.hugepages) return bytes;
  return (bytes + umem_hugepage_size - 1) / umem_hugepage_size * umem_hugepage_size;
}

int area_map_flags(const UmemConfig& config) noexcept {
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
  return config.hugepages ? flags | MAP_HUGETLB | map_huge_2mb : flags;
}

void validate(const UmemConfig& c) {
  const std::string size = std::to_string(c.frame_size);
  require(c.frame_count > 0, "frame_count", "must be at least 1");
  require(c.unaligned_chunks || c.frame_size == 2048 || c.frame_size == 4096, "frame_size",
          size + " must be 2048 or 4096, a power of two (other sizes need unaligned chunks)");
  require(c.frame_size >= 2048 && c.frame_size <= 65536, "frame_size",
          size + " must be 2048 to 65536");
  // The kernel's own rule (xdp_umem_reg): the packet needs XDP_PACKET_HEADROOM (256) after the
  // headroom. Kernels with a315e022 (2026) also keep skb_shared_info and 128 bytes free and
  // refuse more at registration (EINVAL): that size depends on the kernel's build.
  require(c.headroom < c.frame_size - 256, "headroom",
          "must be less than frame_size - XDP_PACKET_HEADROOM (256)");
  require(std::has_single_bit(c.fill_size), "fill_size",
          std::to_string(c.fill_size) + " must be a power of two");
  require(std::has_single_bit(c.completion_size), "completion_size",
          std::to_string(c.completion_size) + " must be a power of two");
  require(!c.unaligned_chunks || c.hugepages, "unaligned_chunks", "needs hugepages");
  require(std::uint64_t{c.frame_count} * c.frame_size <= (std::uint64_t{1} << 40),
          "frame_count * frame_size", "must be at most 1 TiB");
}

Umem::Umem(const UmemConfig& config) : config_(config) {
  validate(config_);
  area_ = map_area(config_);
  open_registered();
}

void Umem::open_registered() {
  auto fd = UniqueFd::socket(AF_XDP, SOCK_RAW, 0);

  xdp_umem_reg reg{};
  reg.addr = reinterpret_cast<std::uint64_t>(area_.data());
  reg.len = std::uint64_t{config_.frame_count} * config_.frame_size;
  reg.chunk_size = config_.frame_size;
  reg.headroom = config_.headroom;
  reg.flags = config_.unaligned_chunks ? XDP_UMEM_UNALIGNED_CHUNK_FLAG : 0;
  detail::set_option(fd.get(), SOL_XDP, XDP_UMEM_REG, reg, "XDP_UMEM_REG", "UMEM");
  MappedRing<FillRing> fill;
  MappedRing<CompletionRing> completion;
  detail::make_umem_rings(fd.get(), config_.fill_size, config_.completion_size, "UMEM", fill,
                          completion);
  // Nothing changes unless all of it worked. The ring objects stay where they are, so references
  // from fill() and completion() stay valid.
  fill_ = std::move(fill);
  completion_ = std::move(completion);
  fd_ = std::move(fd);
}

void Umem::reopen() noexcept {
  // Unmap before closing: each mapping holds the socket's file, so the kernel would keep it.
  fill_ = {};
  completion_ = {};
  fd_ = {};
  try {
    open_registered();
  } catch (...) {
    // Out of resources: the next Socket opens one again, and reports the error if it persists.
  }
}

void Umem::leave_home() noexcept {
  if (home_users_ == 0 || --home_users_ != 0) return;
  bound_ = false;
  bound_ifindex_ = 0;
  bound_queue_ = 0;
  reopen();
}

}  // namespace afxdp
