#include <afxdp/detail/socket_option.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/unique_fd.hpp>
#include <afxdp/xsk/xsk_program.hpp>

#include "skeleton.hpp"
#include "steer_tables.hpp"
#include "xsk_redirect.skel.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <optional>
#include <stdexcept>
#include <unistd.h>

namespace afxdp {

struct XskProgram::State {
  XskProgramConfig config;
  unsigned ifindex = 0;
  Skeleton<xsk_redirect, xsk_redirect__destroy> skeleton;  // the embedded program, or empty
  UniqueFd map;          // our own reference to the XSKMAP, whoever loaded it
  int program_fd = -1;   // the embedded program's (the skeleton owns it)
  UniqueFd own_program;  // our own reference to an application's program, attached or not
  std::optional<detail::SteerTables> steer;  // the embedded program's
  std::optional<XdpLink> link;
};

namespace {

UniqueFd duplicate(int fd, const std::string& what) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) throw_errno(errno, "dup " + what);
  return UniqueFd::adopt(copy, "dup");
}

XdpLink link_program(const XskProgramConfig& config, int prog_fd) {
  return XdpLink(config.interface, prog_fd, {.mode = config.mode, .replace = config.replace});
}

}  // namespace

XskProgram::XskProgram(const XskProgramConfig& config) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.config = config;
  if (config.fallback == XdpAction::redirect) {
    throw std::invalid_argument("fallback: must be aborted, drop, pass or tx");
  }
  const bool named = config.attach || !config.interface.empty();
  s.ifindex = named ? interface_index(config.interface) : 0;
  std::uint32_t queues = config.queues;
  if (queues == 0 && named) queues = interface_rx_queues(config.interface);
  if (queues == 0) queues = 64;  // the driver does not say: room for the usual maximum

  s.skeleton.reset(xsk_redirect__open());
  if (!s.skeleton) throw_errno(errno, "bpf: open the redirect program");
  s.skeleton->rodata->fallback_action = static_cast<std::uint32_t>(config.fallback);
  if (bpf_map__set_max_entries(s.skeleton->maps.xsks, queues) != 0) {
    throw_errno(errno, "bpf: size the XSKMAP");
  }
  bpf_program* chosen =
      config.frags ? s.skeleton->progs.xsk_redirect_frags : s.skeleton->progs.xsk_redirect;
  bpf_program* unused =
      config.frags ? s.skeleton->progs.xsk_redirect : s.skeleton->progs.xsk_redirect_frags;
  bpf_program__set_autoload(unused, false);
  if (xsk_redirect__load(s.skeleton.get()) != 0) {
    throw_errno(errno, config.frags
                           ? "bpf: load the frags redirect program (xdp.frags: Linux "
                             "5.18+, BPF JIT and CAP_BPF needed)"
                           : "bpf: load the redirect program (BPF JIT and CAP_BPF needed)");
  }

  s.map = duplicate(bpf_map__fd(s.skeleton->maps.xsks), "the XSKMAP");
  s.steer = detail::SteerTables{.entries = bpf_map__fd(s.skeleton->maps.steer_entries),
                                .narrow = bpf_map__fd(s.skeleton->maps.steer_narrow),
                                .hits = bpf_map__fd(s.skeleton->maps.steer_hits),
                                .shapes = &s.skeleton->bss->steer_shapes,
                                .filter = &s.skeleton->bss->steer_filter,
                                .ports = &s.skeleton->bss->steer_ports};
  s.program_fd = bpf_program__fd(chosen);
  if (config.attach) s.link.emplace(link_program(config, s.program_fd));
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
    throw_errno(errno, "bpf: load object '" + object_name + "'");
  }
  state->map = duplicate(bpf_map__fd(map), "XSKMAP '" + map_name + "'");
  state->own_program = duplicate(bpf_program__fd(prog), "program '" + program_name + "'");
  if (config.attach) state->link.emplace(link_program(config, state->own_program.get()));
  return XskProgram(std::move(state));
}

XskProgram::XskProgram(XskProgram&&) noexcept = default;
XskProgram& XskProgram::operator=(XskProgram&&) noexcept = default;
XskProgram::~XskProgram() = default;

void XskProgram::insert(std::uint32_t queue, int socket_fd) {
  const int map_fd = state_->map.get();
  if (bpf_map_update_elem(map_fd, &queue, &socket_fd, BPF_ANY) != 0) {
    throw_errno(
        errno, "XSKMAP insert for " + state_->config.interface + " queue " + std::to_string(queue));
  }
}

void XskProgram::erase(std::uint32_t queue) {
  const int map_fd = state_->map.get();
  bpf_map_delete_elem(map_fd, &queue);
}

void XskProgram::attach() {
  State& s = *state_;
  if (s.link) throw std::logic_error("XskProgram::attach: attached already");
  s.link.emplace(link_program(s.config, s.program_fd >= 0 ? s.program_fd : s.own_program.get()));
}

unsigned XskProgram::ifindex() const noexcept { return state_->ifindex; }
std::uint32_t XskProgram::program_id() const noexcept {
  return state_->link ? state_->link->program_id() : 0;
}
int XskProgram::program_fd() const noexcept { return state_->program_fd; }
const XskProgramConfig& XskProgram::config() const noexcept { return state_->config; }

detail::SteerTables* detail::steer_tables(XskProgram& program) noexcept {
  return program.state_->steer ? &*program.state_->steer : nullptr;
}

}  // namespace afxdp
