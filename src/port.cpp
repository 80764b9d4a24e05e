#include <afxdp/detail/uapi.hpp>
#include <afxdp/error.hpp>
#include <afxdp/port.hpp>
#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/privilege.hpp>

#include "frame_owners.hpp"
#include "port_config.hpp"
#include "port_state.hpp"
#include "socket_kernel.hpp"
#include "steer_tables.hpp"

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <system_error>
#include <thread>

namespace afxdp {
namespace {

// Linux 6.17+ (XDP_MAX_TX_SKB_BUDGET): how many descriptors one copy-mode sendto() turns into
// skbs, 32 before. Half the tx ring is the most the kernel takes; older kernels refuse the
// option and keep 32, which costs a syscall per 32 frames and nothing else.
void raise_tx_budget(Socket& socket) noexcept {
  const int budget = static_cast<int>(socket.tx().size() / 2);
  if (budget >= 32 && !socket.zero_copy()) {
    ::setsockopt(socket.fd(), SOL_XDP, uapi::xdp_max_tx_skb_budget, &budget, sizeof budget);
  }
}

// The rx queues to open on `interface`: the configured ones, each checked, or every one.
std::vector<std::uint32_t> queue_list(const std::string& interface, const PortConfig& c) {
  if (!c.queues.empty()) {
    check_queues(interface, c.queues);
    return c.queues;
  }
  const std::uint32_t count = interface_rx_queues(interface);
  std::vector<std::uint32_t> all(count == 0 ? 1 : count);
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

// The UMEMs and sockets, bound. One UMEM for all (shared, or a pair) or one per socket.
void bind_sockets(Port::State& s, const std::vector<std::string>& interfaces,
                  const std::vector<std::uint32_t>& queues, bool shared) {
  const PortConfig& c = s.config;
  const auto total = static_cast<std::uint32_t>(interfaces.size() * queues.size());
  if (shared) s.umems.push_back(std::make_unique<Umem>(detail::umem_config(c, total)));
  for (const std::string& interface : interfaces) {
    for (const std::uint32_t q : queues) {
      if (!shared) s.umems.push_back(std::make_unique<Umem>(detail::umem_config(c, 1)));
      s.sockets.push_back(
          std::make_unique<Socket>(*s.umems.back(), detail::socket_config(c, interface, q)));
    }
  }
}

// bind() says EBUSY while the kernel still releases the queue's previous socket (a run that
// ended a moment ago): start over with fresh UMEMs for a while.
void bind_with_retry(Port::State& s, const std::vector<std::string>& interfaces,
                     const std::vector<std::uint32_t>& queues, bool shared) {
  const auto deadline = std::chrono::steady_clock::now() + s.config.busy_retry;
  for (;;) {
    try {
      return bind_sockets(s, interfaces, queues, shared);
    } catch (const std::system_error& e) {
      if (e.code().value() != EBUSY || std::chrono::steady_clock::now() >= deadline) throw;
      s.sockets.clear();
      s.umems.clear();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

void make_queues(Port::State& s, std::size_t per_interface, bool shared) {
  const PortConfig& c = s.config;
  const std::uint64_t span = std::uint64_t{c.frames_per_queue} * c.frame_size;
  std::vector<detail::QueueSetup> setups;
  for (std::size_t i = 0; i < s.sockets.size(); ++i) {
    Socket& socket = *s.sockets[i];
    Umem& umem = socket.umem();
    detail::QueueSetup q;
    q.interface = socket.config().interface;
    q.id = socket.config().queue;
    q.fill = &socket.fill();
    q.completion = &socket.completion();
    q.rx = c.receive ? &socket.rx() : nullptr;
    q.tx = c.transmit ? &socket.tx() : nullptr;
    q.area = umem.area().data();
    q.first = shared ? span * i : 0;
    q.frames = c.frames_per_queue;
    q.frame_size = c.frame_size;
    q.headroom = c.headroom;
    q.unaligned = c.unaligned_chunks;
    q.multi_buffer = c.multi_buffer;
    q.fill_frames = c.receive ? c.frames_per_queue : 0;
    q.need_wakeup = c.need_wakeup;
    q.busy_poll = c.busy_poll;
    q.spin_before_sleep = c.spin_before_sleep;
    q.fd = socket.fd();
    q.socket = &socket;
    s.kernels.push_back(std::make_unique<detail::SocketKernel>(socket, c.receive));
    q.kernel = s.kernels.back().get();
    q.umem = &umem;
    q.owners = shared ? &s.owners : nullptr;
    setups.push_back(std::move(q));
    if (c.transmit) raise_tx_budget(socket);
  }
  s.queues.build(setups);
  s.owners.first = 0;
  s.owners.span = span;
  for (Queue& q : s.queues.span()) s.owners.queues.push_back(&q);
  s.per_interface = per_interface;
}

// The redirect program on each interface, then each queue's XSKMAP slot: the fill rings are
// primed by now, so no frame arrives at a socket with nothing to receive into. `rules` go to
// the Port's Steering, which keeps them from then on (PortConfig::steer).
void attach_programs(Port::State& s, const std::vector<std::string>& interfaces,
                     const std::vector<Match>& rules) {
  if (!s.config.receive) return;
  std::size_t i = 0;
  const PortConfig::Program& own = s.config.program;
  for (const std::string& interface : interfaces) {
    const XskProgramConfig config{.interface = interface,
                                  .mode = s.config.attach,
                                  .fallback = s.config.unbound_queues,
                                  .replace = s.config.replace_program,
                                  .frags = s.config.multi_buffer,
                                  .attach = false};
    auto program = own.object == nullptr ? std::make_unique<XskProgram>(config)
                                         : std::make_unique<XskProgram>(XskProgram::from_object(
                                               own.object, own.name, own.xskmap, config));
    // The program's tables go to the Steering (src/steer_tables.hpp); an own program has none.
    if (detail::SteerTables* tables = detail::steer_tables(*program); tables != nullptr) {
      detail::add_program(s.steering, *tables);
    }
    if (s.programs.empty()) {  // the rules before any socket; later programs get them on adding
      for (const Match& m : rules) s.steering.add(m);
    }
    for (std::size_t k = 0; k < s.per_interface; ++k, ++i) {
      Queue& q = s.queues.span()[i];
      program->insert(q.id(), q.fd());
    }
    // Only now: attached earlier, a frame for a queue whose socket is not in the map yet (or
    // that no rule matched yet) would go to the kernel, which answers UDP with port unreachable.
    program->attach();
    s.programs.push_back(std::move(program));
  }
}

// What this process lacks when a call failed with `error`: the capabilities for EPERM and
// EACCES, the locked-memory limit for ENOBUFS (XDP_UMEM_REG past RLIMIT_MEMLOCK); empty when
// nothing is, or the error is another.
std::string lacking(int error, std::uint64_t umem_bytes) {
  if (error == EPERM || error == EACCES) return missing_privileges(0);
  if (error != ENOBUFS) return {};
  std::string missing = missing_privileges(umem_bytes);
  return missing.find("RLIMIT_MEMLOCK") != std::string::npos ? missing : std::string{};
}

// A failure for want of a privilege, said with the interface and what is missing:
// "veth1: socket, lacking CAP_NET_RAW: Operation not permitted". Others as they are.
// Called only from a catch block.
[[noreturn]] void rethrow_naming_privilege(const std::system_error& e, const std::string& interface,
                                           std::uint64_t umem_bytes) {
  const std::string missing = lacking(e.code().value(), umem_bytes);
  if (missing.empty()) throw;  // the exception being handled, as it is (XdpAttachConflict...)
  std::string what = message_of(e);
  if (what.find(interface) == std::string::npos) what = interface + ": " + what;
  throw std::system_error(e.code(), what + ", lacking " + missing);
}

// validated(config), its refusal naming the interface (the first of a pair).
ValidatedPortConfig validated_on(std::string_view interface, const PortConfig& config) {
  try {
    return validated(config);
  } catch (const ConfigError& e) {
    throw ConfigError(e.field(), e.rule(), std::string(interface));
  }
}

// `validated` was checked by validated(): nothing here checks it again.
Port open_on(const std::vector<std::string>& interfaces, const ValidatedPortConfig& validated) {
  const PortConfig& config = *validated;
  for (const std::string& interface : interfaces) {
    interface_index(interface);  // "interface X does not exist"
  }
  const std::vector<std::uint32_t> queues = queue_list(interfaces.front(), config);
  for (std::size_t i = 1; i < interfaces.size(); ++i) {
    queue_list(interfaces[i], PortConfig{.queues = queues});
  }
  auto state = std::make_unique<Port::State>();
  state->config = config;
  state->config.steer.clear();  // the rules live in the Steering alone: steering().list()
  const bool shared = config.shared_umem || interfaces.size() > 1;
  try {
    bind_with_retry(*state, interfaces, queues, shared);
    make_queues(*state, queues.size(), shared);
    attach_programs(*state, interfaces, config.steer);
  } catch (const std::system_error& e) {
    state.reset();  // nothing left open or attached while the message is made
    const std::uint64_t umem_bytes = std::uint64_t{config.frames_per_queue} * config.frame_size *
                                     queues.size() * interfaces.size();
    rethrow_naming_privilege(e, interfaces.front(), umem_bytes);
  }
  return Port::from_state(std::move(state));
}

}  // namespace

void check_queues(std::string_view interface_view, std::span<const std::uint32_t> queues) {
  const std::string interface(interface_view);
  interface_index(interface);  // "interface X does not exist"
  const std::uint32_t count = interface_rx_queues(interface);
  for (const std::uint32_t q : queues) {
    if (count != 0 && q >= count) {
      throw ConfigError("queues", interface + " has " + std::to_string(count) +
                                      " rx queue(s), so queue " + std::to_string(q) +
                                      " does not exist");
    }
  }
}

ValidatedPortConfig validated(const PortConfig& config) {
  validate(config);
  return ValidatedPortConfig(config);
}

Port Port::open(std::string_view interface, const PortConfig& config) {
  return open(interface, validated_on(interface, config));
}

Port Port::open(std::string_view interface, const ValidatedPortConfig& config) {
  return open_on({std::string(interface)}, config);
}

Port Port::open_pair(std::string_view a, std::string_view b, const PortConfig& config) {
  return open_pair(a, b, validated_on(a, config));
}

Port Port::open_pair(std::string_view a, std::string_view b, const ValidatedPortConfig& config) {
  if (a == b) throw std::invalid_argument("open_pair: a and b are the same interface");
  if (config->program.object != nullptr) {
    throw std::invalid_argument("program: open_pair runs the redirect program on both interfaces");
  }
  return open_on({std::string(a), std::string(b)}, config);
}

Port Port::from_state(std::unique_ptr<State> state) noexcept { return Port(std::move(state)); }
Port::Port(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Port::Port(Port&&) noexcept = default;
Port& Port::operator=(Port&&) noexcept = default;
Port::~Port() = default;

std::span<Queue> Port::queues() noexcept { return state_->queues.span(); }

Queue& Port::queue(std::uint32_t id) {
  for (std::size_t i = 0; i < state_->per_interface; ++i) {
    Queue& q = state_->queues.span()[i];
    if (q.id() == id) return q;
  }
  throw std::out_of_range("queue " + std::to_string(id) + " is not open on this port");
}

XskProgram* Port::program(std::size_t i) noexcept {
  return i < state_->programs.size() ? state_->programs[i].get() : nullptr;
}

Steering& Port::steering() noexcept { return state_->steering; }

bool Port::zero_copy() const noexcept {
  return !state_->sockets.empty() && state_->sockets.front()->zero_copy();
}

const PortConfig& Port::config() const noexcept { return state_->config; }

}  // namespace afxdp
