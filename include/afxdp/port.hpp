// afxdp::Port: an interface's rx queues opened for AF_XDP in one call, each as an afxdp::Queue.
//
//   auto port = afxdp::Port::open("eth1");            // every rx queue, the redirect program
//   afxdp::run_per_queue(port, [](afxdp::Queue& q, std::stop_token stop) {
//     while (!stop.stop_requested())
//       if (q.receive([](afxdp::Frames frames) { /* count */ }) == 0) q.wait(100ms);
//   });
//
// Open does, in this order: a UMEM per queue (or one shared), a socket per queue, the fill rings
// primed, the redirect program attached through a bpf_link, and only then each XSKMAP slot set;
// the copy-mode tx budget raised; a bind that says EBUSY (the previous owner's socket is still
// being released) retried for up to a second. Everything is released with the Port, in reverse.
//
// Threading: see queue.hpp; control calls on a Port are not for the data path.
#pragma once

#include <afxdp/error.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/steering/steering.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace afxdp {

struct PortConfig {
  std::vector<std::uint32_t> queues{};  // rx queues to open; empty: every one
  std::uint32_t frames_per_queue = 4096;
  std::uint32_t frame_size = 4096;  // 2048 or 4096
  std::uint32_t headroom = 0;       // the UMEM's, in front of XDP_PACKET_HEADROOM
  std::uint32_t ring_size = 2048;   // every ring, a power of two
  std::uint32_t fill_size = 0;      // the fill ring alone; 0: ring_size
  BindMode bind = BindMode::automatic;
  AttachMode attach = AttachMode::native;
  bool need_wakeup = true;
  bool shared_umem = false;  // one UMEM for every queue (XDP_SHARED_UMEM)
  bool busy_poll = false;
  std::uint32_t busy_poll_usecs = 20;
  std::uint32_t busy_poll_budget = 64;
  // Latency: Queue::wait re-checks the rx ring for this long before it gives the CPU away, in
  // poll() (a wake-up costs tens of microseconds in a VM) or, with a zero timeout, sched_yield()
  // (a time slice on a busy CPU). 0: the adaptive window alone, which suits throughput. Up to
  // 1 s; Queue::spin_before_sleep changes it later.
  std::chrono::nanoseconds spin_before_sleep{0};
  XdpAction unbound_queues = XdpAction::pass;  // the embedded program's action where no socket is
                                               // bound (own program: leave it)
  bool replace_program = false;                // take the place of a netlink-attached XDP program
  bool receive = true;            // rx rings and the redirect program; false: send only
  bool transmit = true;           // tx rings
  bool unaligned_chunks = false;  // XDP_UMEM_UNALIGNED_CHUNK_FLAG (hugepages)
  // Packets larger than a frame, as chains (Queue::receive_packets, serve_packets): sockets bound
  // with XDP_USE_SG and the frags-capable redirect program (an own `program` must be one,
  // SEC("xdp.frags")). Linux 6.6+.
  bool multi_buffer = false;
  std::chrono::milliseconds busy_retry{1000};  // how long a bind saying EBUSY is retried
  // What the sockets receive: frames matching any of these (Port::steering() holds them once
  // open, and changes them later; Port::config().steer is then empty); the rest pass to the
  // kernel. Empty: every frame. In place before any socket is.
  std::vector<Match> steer{};
  // Last on purpose: g++ 12 at -O2/-O3 warned -Wmaybe-uninitialized on Program's strings when a
  // later member's initializer could throw ({.steer = {Match::parse(...)}}: the unwind path
  // destroys `program`), failing a user's -Werror build. Nothing after it, nothing to unwind.
  // The application's own XDP program instead of the embedded redirect program
  // (XskProgram::from_object): `name` in `object`, whose XSKMAP `xskmap` gets each queue's
  // socket at the queue's id. Not with open_pair. Null object: the redirect program.
  struct Program {
    bpf_object* object = nullptr;
    std::string name;
    std::string xskmap;
  };
  Program program{};
};

// Throws afxdp::ConfigError naming the PortConfig field the caller set and the rule; needs no
// kernel.
void validate(const PortConfig& config);

// A PortConfig that validate() has accepted, and can no longer change: only validated() makes
// one, so Port::open takes it without checking again. For a caller that checks early, to say a
// refusal in its own words before anything is set up (the tool, while parsing its options):
//
//   const afxdp::ValidatedPortConfig config = afxdp::validated(wanted);  // a ConfigError here
//   auto port = afxdp::Port::open("eth1", config);                         // not checked again
class ValidatedPortConfig {
 public:
  // Copies only (a move copies too): a moved-from PortConfig is not the one validate() accepted.
  ValidatedPortConfig(const ValidatedPortConfig&) = default;
  ValidatedPortConfig& operator=(const ValidatedPortConfig&) = default;
  ~ValidatedPortConfig() = default;

  const PortConfig& operator*() const noexcept { return config_; }
  const PortConfig* operator->() const noexcept { return &config_; }

 private:
  explicit ValidatedPortConfig(const PortConfig& config) : config_(config) {}
  friend ValidatedPortConfig validated(const PortConfig& config);
  PortConfig config_;
};

// validate(config), then the config as accepted; throws afxdp::ConfigError as validate does.
[[nodiscard]] ValidatedPortConfig validated(const PortConfig& config);

// Throws what Port::open would for a missing interface or an rx queue it does not have, without
// opening anything (to refuse bad input before doing anything else).
void check_queues(std::string_view interface, std::span<const std::uint32_t> queues);

class Port {
 public:
  // Throws afxdp::ConfigError (a std::invalid_argument) or std::system_error naming the
  // interface, the queue and the field; nothing is left attached and no fd open when it does.
  // A PortConfig is validated once (validated()); a ValidatedPortConfig is not checked again.
  static Port open(std::string_view interface, const PortConfig& config = {});
  static Port open(std::string_view interface, const ValidatedPortConfig& config);
  // Two interfaces on one UMEM, the same queues on both: queues() holds a's, then b's. Frames
  // forwarded between them (Queue::forward) are never copied.
  static Port open_pair(std::string_view a, std::string_view b, const PortConfig& config = {});
  static Port open_pair(std::string_view a, std::string_view b, const ValidatedPortConfig& config);

  Port(Port&&) noexcept;
  Port& operator=(Port&&) noexcept;
  ~Port();

  std::span<Queue> queues() noexcept;
  // The queue bound to rx queue `id` (of the first interface); throws std::out_of_range.
  Queue& queue(std::uint32_t id);
  // The redirect program on interface i (0, or 1 for open_pair's b); null when not receiving.
  XskProgram* program(std::size_t i = 0) noexcept;
  // The steering rules of every program of the port (docs/api.md "Steering").
  Steering& steering() noexcept;
  // Did the sockets bind in zero-copy mode?
  [[nodiscard]] bool zero_copy() const noexcept;
  // As opened, but for `steer`: the rules are steering()'s (list()).
  [[nodiscard]] const PortConfig& config() const noexcept;

  // What a Port owns (src/port_state.hpp); testing::Loopback builds one over memory.
  struct State;
  static Port from_state(std::unique_ptr<State> state) noexcept;

 private:
  explicit Port(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace afxdp
