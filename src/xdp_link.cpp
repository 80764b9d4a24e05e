#include <afxdp/detail/socket_option.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xdp_link.hpp>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <unistd.h>

#include <cerrno>

namespace afxdp {
namespace {

std::uint32_t mode_flags(AttachMode mode) {
  return mode == AttachMode::skb ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
}

const char* mode_name(AttachMode mode) { return mode == AttachMode::skb ? "skb" : "native"; }

// Is program `program_id` on `ifindex` held by a bpf_link? Netlink cannot detach such a program:
// the kernel refuses and libbpf prints the kernel's message on stderr, and the library does not
// log, so look before trying. The program id is global, so it pins the link down even though
// ifindex alone is only unique within a network namespace.
bool held_by_link(unsigned ifindex, std::uint32_t program_id) {
  std::uint32_t id = 0;
  while (bpf_link_get_next_id(id, &id) == 0) {
    const int fd = bpf_link_get_fd_by_id(id);
    if (fd < 0) continue;  // gone meanwhile
    bpf_link_info info{};
    std::uint32_t length = sizeof info;
    const bool match = bpf_obj_get_info_by_fd(fd, &info, &length) == 0 &&
                       info.type == BPF_LINK_TYPE_XDP && info.prog_id == program_id &&
                       info.xdp.ifindex == ifindex;
    ::close(fd);
    if (match) return true;
  }
  return false;
}

[[noreturn]] void refuse_link_held(const std::string& interface, std::uint32_t other) {
  throw XdpAttachConflict(other, "the XDP program (id " + std::to_string(other) + ") on " +
                                     interface +
                                     " is held by a bpf_link (another XdpLink, in this process or"
                                     " another) and only its owner can detach it");
}

// The one check for another program on the interface: refuse to stand on it, or take its place
// when the caller asked for it and netlink (not a bpf_link) holds it.
void make_room(const std::string& interface, unsigned ifindex, bool replace) {
  const std::uint32_t other = attached_xdp_program(ifindex);
  if (other == 0) return;
  if (!replace) {
    throw XdpAttachConflict(other, "another XDP program (id " + std::to_string(other) +
                                       ") is already attached to " + interface +
                                       "; detach it, or ask to replace it (XdpLinkConfig::replace,"
                                       " XskProgramConfig::replace, PortConfig::replace_program)");
  }
  if (held_by_link(ifindex, other)) refuse_link_held(interface, other);
  for (const AttachMode mode : {AttachMode::skb, AttachMode::native}) {
    bpf_xdp_detach(static_cast<int>(ifindex), mode_flags(mode), nullptr);
  }
  // Attached again meanwhile, by someone's bpf_link.
  if (attached_xdp_program(ifindex) != 0) refuse_link_held(interface, other);
}

}  // namespace

std::uint32_t attached_xdp_program(unsigned ifindex) {
  bpf_xdp_query_opts query{};
  query.sz = sizeof query;
  if (bpf_xdp_query(static_cast<int>(ifindex), 0, &query) != 0) return 0;
  if (query.prog_id != 0) return query.prog_id;
  return query.skb_prog_id != 0 ? query.skb_prog_id : query.drv_prog_id;
}

XdpLink::XdpLink(std::string_view interface, int program_fd, const XdpLinkConfig& config)
    : interface_(interface), ifindex_(interface_index(interface_)) {
  make_room(interface_, ifindex_, config.replace);
  bpf_link_create_opts options{};
  options.sz = sizeof options;
  options.flags = mode_flags(config.mode);
  const int link = bpf_link_create(program_fd, static_cast<int>(ifindex_), BPF_XDP, &options);
  if (link < 0) {
    // A driver without native XDP (lo, a bridge, a tunnel) says only EOPNOTSUPP: say what works.
    const bool no_native = -link == EOPNOTSUPP && config.mode == AttachMode::native;
    throw_errno(-link, "attach XDP program to " + interface_ + " in " + mode_name(config.mode) +
                           " mode" +
                           (no_native ? " (its driver has no native XDP; skb mode, the kernel's "
                                        "generic XDP, works on every interface)"
                                      : ""));
  }
  link_ = UniqueFd::adopt(link, "bpf_link_create");

  bpf_link_info info{};
  std::uint32_t length = sizeof info;
  if (bpf_obj_get_info_by_fd(link_.get(), &info, &length) == 0) {
    link_id_ = info.id;
    program_id_ = info.prog_id;
  }
}

}  // namespace afxdp
