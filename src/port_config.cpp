// validate(PortConfig): the rules, pure, no kernel; and the UmemConfig and SocketConfig a
// PortConfig becomes, which the rules check and Port::open (port.cpp) builds from.
#include <afxdp/error.hpp>
#include <afxdp/port.hpp>

#include "port_config.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace afxdp {
namespace {

// Two sockets on one queue id would bind once and fail, or (shared UMEM) share a fill ring that
// only one of them fills.
void require_distinct(const std::vector<std::uint32_t>& queues) {
  for (auto q = queues.begin(); q != queues.end(); ++q) {
    if (std::find(queues.begin(), q, *q) != q) {
      throw ConfigError("queues", std::to_string(*q) + " appears twice");
    }
  }
}

// The PortConfig field the caller set that became a UmemConfig or SocketConfig field: a message
// names what the caller can change.
std::string port_field(const std::string& field, const PortConfig& c) {
  if (field == "fill_size") return c.fill_size != 0 ? "fill_size" : "ring_size";
  if (field == "completion_size" || field == "rx_size" || field == "tx_size") return "ring_size";
  if (field == "frame_count") return "frames_per_queue";
  if (field == "frame_count * frame_size") return "frames_per_queue * frame_size";
  return field;  // the same name in both
}

}  // namespace

namespace detail {

UmemConfig umem_config(const PortConfig& c, std::uint32_t queues) {
  return {.frame_count = c.frames_per_queue * queues,
          .frame_size = c.frame_size,
          .headroom = c.headroom,
          .fill_size = c.fill_size != 0 ? c.fill_size : c.ring_size,
          .completion_size = c.ring_size,
          .unaligned_chunks = c.unaligned_chunks,
          .hugepages = c.unaligned_chunks};
}

SocketConfig socket_config(const PortConfig& c, const std::string& interface, std::uint32_t queue) {
  return {.interface = interface,
          .queue = queue,
          .mode = c.bind,
          .need_wakeup = c.need_wakeup,
          .multi_buffer = c.multi_buffer,
          .rx_size = c.receive ? c.ring_size : 0,
          .tx_size = c.transmit ? c.ring_size : 0,
          .busy_poll = c.busy_poll,
          .busy_poll_usecs = c.busy_poll_usecs,
          .busy_poll_budget = c.busy_poll_budget};
}

}  // namespace detail

void validate(const PortConfig& c) {
  if (c.frames_per_queue == 0) throw ConfigError("frames_per_queue", "must be at least 1");
  if (!c.receive && !c.transmit) {
    throw ConfigError("receive, transmit", "a port must do at least one");
  }
  if (c.spin_before_sleep < std::chrono::nanoseconds(0) ||
      c.spin_before_sleep > std::chrono::seconds(1)) {
    throw ConfigError("spin_before_sleep", "must be from 0 to 1 s");
  }
  require_distinct(c.queues);
  try {
    validate(detail::umem_config(c, 1));
    validate(detail::socket_config(c, "port", 0));
  } catch (const ConfigError& e) {
    throw ConfigError(port_field(e.field(), c), e.rule());
  }
  // The embedded program's fallback: an own program has its own policy and never saw this.
  if (c.program.object != nullptr && c.unbound_queues != PortConfig{}.unbound_queues) {
    throw ConfigError(
        "unbound_queues",
        "the embedded redirect program's fallback: an own program decides for itself");
  }
  if (!c.steer.empty() && (c.program.object != nullptr || !c.receive)) {
    throw ConfigError("steer", "needs the embedded redirect program (receive on, no own program)");
  }
}

}  // namespace afxdp
