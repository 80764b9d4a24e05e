// The redirect program: an XDP program that sends each frame to the AF_XDP socket bound to the
// frame's rx queue (an XSKMAP indexed by queue), or applies a fallback action where no socket is.
// It is embedded in the binary (libbpf skeleton) and attached through an XdpLink (a bpf_link), so
// the kernel detaches it when the last fd to the link closes: on any exit, kill -9 included.
//
// An application may bring its own XDP program instead (from_object): any libbpf object with an
// XSKMAP, attached and owned the same way.
//
// Threading: control path only; insert/erase may be called while traffic flows.
#pragma once

#include <afxdp/xsk/xdp_action.hpp>
#include <afxdp/xsk/xdp_link.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct bpf_object;  // libbpf

namespace afxdp {

struct XskProgramConfig {
  std::string interface;
  AttachMode mode = AttachMode::native;
  XdpAction fallback = XdpAction::pass;  // for queues without a socket (embedded program only)
  std::uint32_t queues = 0;  // XSKMAP size; 0: the interface's rx queue count (embedded only)
  bool replace = false;      // detach another (netlink-attached) XDP program first
  // Load the frags-capable variant (SEC("xdp.frags")), for multi-buffer sockets (XDP_USE_SG) and
  // MTUs larger than a page. Embedded program only.
  bool frags = false;
  // false: load the program without attaching it (BPF_PROG_TEST_RUN, benchmarks, or to fill the
  // XSKMAP and rules first and attach() after); `interface` may then be empty unless attach()
  // follows.
  bool attach = true;
};

class XskProgram;

namespace detail {
struct SteerTables;
// The embedded program's steering tables (its maps and .bss), null for an own program: for
// Port::open, which hands them to the Port's Steering (src/steer_tables.hpp). Not an API.
SteerTables* steer_tables(XskProgram& program) noexcept;
}  // namespace detail

class XskProgram {
 public:
  explicit XskProgram(const XskProgramConfig& config);

  // The application's own program: `program` of `object` (opened or loaded; loaded here if only
  // opened), with `xskmap` the XSKMAP that insert/erase fill, keyed as the program reads it.
  // Attached through a bpf_link owned by the result (unless config.attach is false), like the
  // embedded program; the result keeps its own references to the program and the map, so
  // `object` may be closed afterwards.
  // A missing program or map, a program not of type XDP or a map not an XSKMAP: one
  // std::invalid_argument naming the object, the program and the map, and nothing attached.
  static XskProgram from_object(bpf_object* object, std::string_view program,
                                std::string_view xskmap, const XskProgramConfig& config);
  XskProgram(XskProgram&&) noexcept;
  XskProgram& operator=(XskProgram&&) noexcept;
  ~XskProgram();

  // Send frames of rx queue `queue` to the socket `socket_fd`.
  void insert(std::uint32_t queue, int socket_fd);
  void erase(std::uint32_t queue);
  // Attach one made with config.attach false, through a bpf_link as the constructor would: once
  // its XSKMAP (and rules) are filled, so no frame meets it with nowhere to go. Attached already:
  // std::logic_error.
  void attach();

  [[nodiscard]] unsigned ifindex() const noexcept;
  [[nodiscard]] std::uint32_t program_id() const noexcept;
  [[nodiscard]] int program_fd() const noexcept;  // the embedded program's; -1 for an own
  [[nodiscard]] const XskProgramConfig& config() const noexcept;

 private:
  struct State;
  explicit XskProgram(std::unique_ptr<State> state);
  friend detail::SteerTables* detail::steer_tables(XskProgram& program) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace afxdp
