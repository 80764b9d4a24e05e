// The NAPI kthreads of one interface, found through the kernel's netdev generic-netlink family
// (napi-get, Linux 6.8+): kthreads live in the initial namespace whatever device they serve, and
// their names ("napi/<if>-<id>") are cut to 15 characters, so neither a thread's namespace nor
// its name tells our interface's threads from those of a same-named one elsewhere.
#include "lab.hpp"

#include <afxdp/error.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

namespace afxdp::lab {
namespace {

// uapi linux/netdev.h (newer than Debian 12's headers).
constexpr std::uint8_t netdev_cmd_napi_get = 11;
constexpr std::uint16_t netdev_a_napi_ifindex = 1;
constexpr std::uint16_t netdev_a_napi_pid = 4;

// Netlink aligns messages and attributes to 4 bytes (its macros trip -Wold-style-cast).
constexpr std::size_t align4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }

// One generic-netlink request: header, genl header, attributes.
class Request {
 public:
  Request(std::uint16_t family, std::uint8_t command, std::uint16_t flags) {
    nlmsghdr header{};
    header.nlmsg_type = family;
    header.nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
    header.nlmsg_seq = 1;
    append(&header, sizeof header);
    genlmsghdr genl{};
    genl.cmd = command;
    genl.version = 1;
    append(&genl, sizeof genl);
  }
  void attribute(std::uint16_t type, const void* data, std::size_t length) {
    nlattr attribute{};
    attribute.nla_type = type;
    attribute.nla_len = static_cast<std::uint16_t>(sizeof attribute + length);
    append(&attribute, sizeof attribute);
    append(data, length);
  }
  // The message with its length filled in.
  const std::vector<char>& finish() {
    const auto length = static_cast<std::uint32_t>(bytes_.size());
    std::memcpy(bytes_.data(), &length, sizeof length);  // nlmsg_len comes first
    return bytes_;
  }

 private:
  void append(const void* data, std::size_t length) {
    const auto* begin = static_cast<const char*>(data);
    bytes_.insert(bytes_.end(), begin, begin + length);
    bytes_.resize(align4(bytes_.size()));
  }
  std::vector<char> bytes_;
};

// Sends `request` and calls `on_attribute(type, data, length)` for each top-level attribute of
// each answer, until the kernel is done. Throws std::system_error on a netlink error.
void transact(int fd, Request& request, const std::string& what,
              const std::function<void(std::uint16_t, const char*, std::size_t)>& on_attribute) {
  const std::vector<char>& message = request.finish();
  if (::send(fd, message.data(), message.size(), 0) != static_cast<ssize_t>(message.size())) {
    throw_errno(errno, "send(" + what + ")");
  }
  std::vector<char> buffer(1 << 16);
  for (;;) {
    const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n < 0) throw_errno(errno, "recv(" + what + ")");
    const auto received = static_cast<std::size_t>(n);
    bool done = false;
    for (std::size_t at = 0; at + sizeof(nlmsghdr) <= received;) {
      nlmsghdr header{};
      std::memcpy(&header, buffer.data() + at, sizeof header);
      if (header.nlmsg_len < sizeof header || at + header.nlmsg_len > received) break;
      const char* payload = buffer.data() + at + align4(sizeof header);
      const std::size_t length = header.nlmsg_len - align4(sizeof header);
      if (header.nlmsg_type == NLMSG_DONE) done = true;
      if (header.nlmsg_type == NLMSG_ERROR) {
        nlmsgerr error{};
        std::memcpy(&error, payload, std::min(length, sizeof error));
        if (error.error != 0) throw_errno(-error.error, what);
        done = true;
      } else if (header.nlmsg_type != NLMSG_DONE) {
        for (std::size_t a = align4(sizeof(genlmsghdr)); a + sizeof(nlattr) <= length;) {
          nlattr attribute{};
          std::memcpy(&attribute, payload + a, sizeof attribute);
          if (attribute.nla_len < sizeof attribute || a + attribute.nla_len > length) break;
          on_attribute(static_cast<std::uint16_t>(attribute.nla_type & NLA_TYPE_MASK),
                       payload + a + align4(sizeof attribute),
                       attribute.nla_len - align4(sizeof attribute));
          a += align4(attribute.nla_len);
        }
      }
      at += align4(header.nlmsg_len);
    }
    if (done || received == 0) return;
  }
}

std::uint16_t netdev_family(int fd) {
  Request request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
  request.attribute(CTRL_ATTR_FAMILY_NAME, "netdev", sizeof "netdev");
  std::uint16_t family = 0;
  transact(fd, request, "CTRL_CMD_GETFAMILY netdev",
           [&](std::uint16_t type, const char* data, std::size_t length) {
             if (type == CTRL_ATTR_FAMILY_ID && length >= sizeof family) {
               std::memcpy(&family, data, sizeof family);
             }
           });
  if (family == 0) throw_errno(ENOENT, "generic netlink family netdev");
  return family;
}

}  // namespace

std::vector<int> napi_thread_pids(const std::string& interface) {
  const unsigned ifindex = ::if_nametoindex(interface.c_str());
  if (ifindex == 0) throw_errno(ENODEV, "interface " + interface + " does not exist");
  auto fd = UniqueFd::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
  Request request(netdev_family(fd.get()), netdev_cmd_napi_get, NLM_F_DUMP);
  const std::uint32_t index = ifindex;
  request.attribute(netdev_a_napi_ifindex, &index, sizeof index);
  std::vector<int> pids;
  transact(fd.get(), request, "netdev napi-get on " + interface,
           [&](std::uint16_t type, const char* data, std::size_t length) {
             std::uint32_t pid = 0;
             if (type == netdev_a_napi_pid && length >= sizeof pid) {
               std::memcpy(&pid, data, sizeof pid);
               if (pid != 0) pids.push_back(static_cast<int>(pid));
             }
           });
  return pids;
}

int pin_napi_threads(const std::string& interface, unsigned cpu) {
  std::vector<int> pids;
  try {
    pids = napi_thread_pids(interface);
  } catch (const std::system_error&) {
    return 0;  // a kernel without napi-get: pinning by name could reach other namespaces
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  int pinned = 0;
  for (const int pid : pids) {
    if (::sched_setaffinity(pid, sizeof set, &set) == 0) ++pinned;
  }
  return pinned;
}

}  // namespace afxdp::lab
