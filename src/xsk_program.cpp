#include <afxdp/detail/socket_option.hpp>
#include <afxdp/detail/unique_fd.hpp>
#include <afxdp/interface.hpp>
#include <afxdp/xsk_program.hpp>

#include "xsk_redirect.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <stdexcept>
#include <unistd.h>

namespace afxdp {
namespace {

// The skeleton as a move-only owner: destroyed (maps and program closed) with the object.
struct SkeletonDeleter {
  void operator()(xsk_redirect* skeleton) const noexcept { xsk_redirect__destroy(skeleton); }
};
using Skeleton = std::unique_ptr<xsk_redirect, SkeletonDeleter>;

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

[[noreturn]] void refuse_link_held(const XskProgramConfig& config, std::uint32_t other) {
  throw std::system_error(EBUSY, std::generic_category(),
                          "the XDP program (id " + std::to_string(other) + ") on " +
                              config.interface +
                              " is held by a bpf_link (another XskProgram, in this process or"
                              " another) and only its owner can detach it");
}

// Refuse to stand on another program, or take its place when the caller asked for it.
void make_room(const XskProgramConfig& config, unsigned ifindex) {
  const std::uint32_t other = attached_xdp_program(ifindex);
  if (other == 0) return;
  if (config.replace && held_by_link(ifindex, other)) refuse_link_held(config, other);
  if (!config.replace) {
    throw std::system_error(EBUSY, std::generic_category(),
                            "another XDP program (id " + std::to_string(other) +
                                ") is already attached to " + config.interface +
                                "; detach it or ask to replace it (--force)");
  }
  // Netlink-attached programs can be detached; one held by another process's bpf_link cannot.
  for (const AttachMode mode : {AttachMode::skb, AttachMode::native}) {
    bpf_xdp_detach(static_cast<int>(ifindex), mode_flags(mode), nullptr);
  }
  if (attached_xdp_program(ifindex) != 0) refuse_link_held(config, other);
}

}  // namespace

struct XskProgram::State {
  XskProgramConfig config;
  unsigned ifindex = 0;
  Skeleton skeleton;      // the embedded program; empty for an application's own
  detail::UniqueFd map;   // our own reference to the XSKMAP, whoever loaded it
  detail::UniqueFd link;
  std::uint32_t program_id = 0;
};

namespace {

detail::UniqueFd duplicate(int fd, const std::string& what) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) detail::throw_errno(errno, "dup " + what);
  return detail::UniqueFd::adopt(copy, "dup");
}

// Attach `prog_fd` to the interface through a bpf_link stored in `link`.
void attach(const XskProgramConfig& config, unsigned ifindex, int prog_fd, detail::UniqueFd& link_fd,
            std::uint32_t& program_id) {
  make_room(config, ifindex);
  bpf_link_create_opts options{};
  options.sz = sizeof options;
  options.flags = mode_flags(config.mode);
  const int link = bpf_link_create(prog_fd, static_cast<int>(ifindex), BPF_XDP, &options);
  if (link < 0) {
    errno = -link;
    detail::throw_errno(-link, std::string("attach XDP program to ") + config.interface + " in " +
                                   mode_name(config.mode) + " mode");
  }
  link_fd = detail::UniqueFd::adopt(link, "bpf_link_create");

  bpf_prog_info info{};
  std::uint32_t length = sizeof info;
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &length) == 0) program_id = info.id;
}

}  // namespace

std::uint32_t attached_xdp_program(unsigned ifindex) {
  bpf_xdp_query_opts query{};
  query.sz = sizeof query;
  if (bpf_xdp_query(static_cast<int>(ifindex), 0, &query) != 0) return 0;
  if (query.prog_id != 0) return query.prog_id;
  return query.skb_prog_id != 0 ? query.skb_prog_id : query.drv_prog_id;
}

XskProgram::XskProgram(const XskProgramConfig& config) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.config = config;
  if (config.fallback == XdpAction::redirect) {
    throw std::invalid_argument("fallback: must be aborted, drop, pass or tx");
  }
  s.ifindex = interface_index(config.interface);
  std::uint32_t queues = config.queues;
  if (queues == 0) queues = interface_rx_queues(config.interface);
  if (queues == 0) queues = 64;  // the driver does not say: room for the usual maximum

  s.skeleton.reset(xsk_redirect__open());
  if (!s.skeleton) detail::throw_errno(errno, "bpf: open the redirect program");
  s.skeleton->rodata->fallback_action = static_cast<std::uint32_t>(config.fallback);
  if (bpf_map__set_max_entries(s.skeleton->maps.xsks, queues) != 0) {
    detail::throw_errno(errno, "bpf: size the XSKMAP");
  }
  bpf_program* chosen = config.frags ? s.skeleton->progs.xsk_redirect_frags
                                     : s.skeleton->progs.xsk_redirect;
  bpf_program* unused = config.frags ? s.skeleton->progs.xsk_redirect
                                     : s.skeleton->progs.xsk_redirect_frags;
  bpf_program__set_autoload(unused, false);
  if (xsk_redirect__load(s.skeleton.get()) != 0) {
    detail::throw_errno(errno, config.frags
                                   ? "bpf: load the frags redirect program (xdp.frags: Linux "
                                     "5.18+, BPF JIT and CAP_BPF needed)"
                                   : "bpf: load the redirect program (BPF JIT and CAP_BPF needed)");
  }

  s.map = duplicate(bpf_map__fd(s.skeleton->maps.xsks), "the XSKMAP");
  attach(config, s.ifindex, bpf_program__fd(chosen), s.link, s.program_id);
}

XskProgram::XskProgram(std::unique_ptr<State> state) : state_(std::move(state)) {}

XskProgram XskProgram::from_object(bpf_object* object, std::string_view program,
                                   std::string_view xskmap, const XskProgramConfig& config) {
  const std::string program_name(program), map_name(xskmap);
  const std::string object_name = object != nullptr ? bpf_object__name(object) : "(null)";
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument("bpf object '" + object_name + "', program '" + program_name +
                                "', XSKMAP '" + map_name + "': " + why);
  };
  if (object == nullptr) refuse("no object");
  bpf_program* prog = bpf_object__find_program_by_name(object, program_name.c_str());
  if (prog == nullptr) refuse("the object has no program of that name");
  if (bpf_program__type(prog) != BPF_PROG_TYPE_XDP) refuse("the program is not of type XDP");
  bpf_map* map = bpf_object__find_map_by_name(object, map_name.c_str());
  if (map == nullptr) refuse("the object has no map of that name");
  if (bpf_map__type(map) != BPF_MAP_TYPE_XSKMAP) refuse("the map is not an XSKMAP");

  auto state = std::make_unique<State>();
  state->config = config;
  state->ifindex = interface_index(config.interface);
  if (bpf_program__fd(prog) < 0 && bpf_object__load(object) != 0) {
    detail::throw_errno(errno, "bpf: load object '" + object_name + "'");
  }
  state->map = duplicate(bpf_map__fd(map), "XSKMAP '" + map_name + "'");
  attach(config, state->ifindex, bpf_program__fd(prog), state->link, state->program_id);
  return XskProgram(std::move(state));
}

XskProgram::XskProgram(XskProgram&&) noexcept = default;
XskProgram& XskProgram::operator=(XskProgram&&) noexcept = default;
XskProgram::~XskProgram() = default;

void XskProgram::insert(std::uint32_t queue, int socket_fd) {
  const int map_fd = state_->map.get();
  if (bpf_map_update_elem(map_fd, &queue, &socket_fd, BPF_ANY) != 0) {
    detail::throw_errno(errno, "XSKMAP insert for " + state_->config.interface + " queue " +
                                   std::to_string(queue));
  }
}

void XskProgram::erase(std::uint32_t queue) {
  const int map_fd = state_->map.get();
  bpf_map_delete_elem(map_fd, &queue);
}

unsigned XskProgram::ifindex() const noexcept { return state_->ifindex; }
std::uint32_t XskProgram::program_id() const noexcept { return state_->program_id; }
const XskProgramConfig& XskProgram::config() const noexcept { return state_->config; }

}  // namespace afxdp
