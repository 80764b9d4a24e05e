// The redirect program: an XDP program that sends each frame to the AF_XDP socket bound to the
// frame's rx queue (an XSKMAP indexed by queue), or applies a fallback action where no socket is.
// It is embedded in the binary (libbpf skeleton) and attached through a bpf_link, so the kernel
// detaches it when the last fd to the link closes: on any exit, kill -9 included.
//
// Threading: control path only; insert/erase may be called while traffic flows.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace afxdp {

enum class AttachMode { skb, native };

// The XDP verdicts, with the uapi's values.
enum class XdpAction : std::uint32_t { aborted = 0, drop = 1, pass = 2, tx = 3, redirect = 4 };

struct XskProgramConfig {
  std::string interface;
  AttachMode mode = AttachMode::native;
  XdpAction fallback = XdpAction::pass;  // for queues without a socket
  std::uint32_t queues = 0;              // XSKMAP size; 0: the interface's rx queue count
  bool replace = false;                  // detach another (netlink-attached) XDP program first
};

class XskProgram {
 public:
  explicit XskProgram(const XskProgramConfig& config);
  XskProgram(XskProgram&&) noexcept;
  XskProgram& operator=(XskProgram&&) noexcept;
  ~XskProgram();

  // Send frames of rx queue `queue` to the socket `socket_fd`.
  void insert(std::uint32_t queue, int socket_fd);
  void erase(std::uint32_t queue);

  unsigned ifindex() const noexcept;
  std::uint32_t program_id() const noexcept;
  const XskProgramConfig& config() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The id of the XDP program attached to `ifindex` in any mode, 0 when there is none.
std::uint32_t attached_xdp_program(unsigned ifindex);

}  // namespace afxdp
