// An XDP program attached to an interface through a bpf_link: the kernel detaches it when the
// last fd to the link closes, so it goes with its owner on any exit, kill -9 included. One
// program per interface: attaching over another is refused unless the caller asks to replace
// one attached the old way (netlink); one held by a bpf_link is detached only by its owner.
//
// Threading: control path only.
#pragma once

#include <afxdp/xsk/unique_fd.hpp>

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

namespace afxdp {

enum class AttachMode { skb, native };

struct XdpLinkConfig {
  AttachMode mode = AttachMode::native;
  bool replace = false;  // detach another (netlink-attached) XDP program first
};

// Another XDP program holds the interface (EBUSY); the message names the interface and it.
class XdpAttachConflict : public std::system_error {
 public:
  XdpAttachConflict(std::uint32_t other_program, const std::string& what)
      : std::system_error(EBUSY, std::generic_category(), what), other_program_(other_program) {}
  [[nodiscard]] std::uint32_t other_program() const noexcept { return other_program_; }

 private:
  std::uint32_t other_program_;
};

class XdpLink {
 public:
  // Attach `program_fd` (an XDP program, loaded) to `interface`. Throws XdpAttachConflict when
  // another program is in the way, std::system_error naming the interface and the mode when the
  // kernel refuses.
  XdpLink(std::string_view interface, int program_fd, const XdpLinkConfig& config = {});
  XdpLink(XdpLink&&) noexcept = default;
  XdpLink& operator=(XdpLink&&) noexcept = default;
  XdpLink(const XdpLink&) = delete;
  XdpLink& operator=(const XdpLink&) = delete;
  ~XdpLink() = default;  // closing the link's fd detaches the program

  [[nodiscard]] const std::string& interface() const noexcept { return interface_; }
  [[nodiscard]] unsigned ifindex() const noexcept { return ifindex_; }
  [[nodiscard]] std::uint32_t program_id() const noexcept { return program_id_; }
  [[nodiscard]] std::uint32_t link_id() const noexcept { return link_id_; }

 private:
  std::string interface_;
  unsigned ifindex_ = 0;
  std::uint32_t program_id_ = 0;
  std::uint32_t link_id_ = 0;
  UniqueFd link_;
};

// The id of the XDP program attached to `ifindex` in any mode, 0 when there is none.
std::uint32_t attached_xdp_program(unsigned ifindex);

}  // namespace afxdp
