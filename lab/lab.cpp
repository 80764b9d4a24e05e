#include "lab.hpp"

#include <afxdp/error.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace afxdp::lab {

void enter_private_network() {
  if (::unshare(CLONE_NEWNET | CLONE_NEWNS) != 0) {
    throw_errno(errno, "unshare(CLONE_NEWNET | CLONE_NEWNS)");
  }
  // Keep our mounts to ourselves, then mount a sysfs that belongs to the new network namespace.
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    throw_errno(errno, "mount(/, MS_PRIVATE)");
  }
  ::umount2("/sys", MNT_DETACH);
  if (::mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0) {
    throw_errno(errno, "mount(sysfs, /sys)");
  }
  run({"ip", "link", "set", "lo", "up"});
}

void run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw_errno(errno, "pipe2");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(err_pipe[1]);
  std::string error_text;
  char buffer[512];
  ssize_t n = 0;
  while ((n = ::read(err_pipe[0], buffer, sizeof buffer)) > 0) {
    error_text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(err_pipe[0]);
  std::string command;
  for (const auto& arg : argv) command += (command.empty() ? "" : " ") + arg;
  if (rc != 0) throw std::runtime_error(command + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!error_text.empty() && error_text.back() == '\n') error_text.pop_back();
    throw std::runtime_error(command + " failed: " + error_text);
  }
}

VethPair::VethPair(const std::string& prefix, std::uint32_t queues)
    : a_(prefix + "a"), b_(prefix + "b"), queues_(queues) {
  const std::string q = std::to_string(queues);
  run({"ip", "link", "add", a_, "numtxqueues", q, "numrxqueues", q, "type", "veth", "peer", "name",
       b_, "numtxqueues", q, "numrxqueues", q});
  try {
    run({"ip", "link", "set", a_, "up"});
    run({"ip", "link", "set", b_, "up"});
  } catch (...) {
    try {
      run({"ip", "link", "del", a_});
    } catch (...) {
    }
    throw;
  }
}

VethPair::VethPair(VethPair&& other) noexcept
    : a_(std::move(other.a_)), b_(std::move(other.b_)), queues_(other.queues_) {
  other.a_.clear();
  other.b_.clear();
}

VethPair::~VethPair() {
  if (a_.empty()) return;
  try {
    run({"ip", "link", "del", a_});
  } catch (...) {
    // Already gone (the namespace or the test deleted it): nothing left to clean.
  }
}

PeerNamespace::PeerNamespace(std::string name, const std::string& interface,
                             const std::vector<std::string>& addresses)
    : name_(std::move(name)) {
  run({"ip", "netns", "add", name_});
  try {
    run({"ip", "link", "set", interface, "netns", name_});
    for (const std::string& address : addresses) {
      std::vector<std::string> add = {"ip", "-n", name_, "addr", "add", address, "dev", interface};
      if (address.find(':') != std::string::npos) add.emplace_back("nodad");
      run(add);
    }
    run({"ip", "-n", name_, "link", "set", interface, "up"});
    run({"ip", "-n", name_, "link", "set", "lo", "up"});
  } catch (...) {
    remove();
    throw;
  }
}

PeerNamespace::~PeerNamespace() { remove(); }

bool PeerNamespace::enter(const std::string& path) noexcept {
  const int ns = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const bool entered = ns >= 0 && ::setns(ns, CLONE_NEWNET) == 0;
  if (ns >= 0) ::close(ns);
  return entered;
}

void PeerNamespace::remove() noexcept {
  try {
    run({"ip", "netns", "del", name_});
  } catch (...) {
  }
}

std::string unique_prefix() {
  static std::atomic<unsigned> counter{0};
  // Built with snprintf: g++ 12 at -O3 warns (-Wrestrict, a known false positive) on the
  // equivalent chain of std::string operator+.
  char name[32];
  std::snprintf(name, sizeof name, "x%dn%u", static_cast<int>(::getpid()), counter++);
  return name;
}

}  // namespace afxdp::lab

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>

namespace afxdp::lab {

PacketSocket::PacketSocket(const std::string& interface)
    : fd_(UniqueFd::socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL))),
      ifindex_(static_cast<int>(::if_nametoindex(interface.c_str()))) {
  if (ifindex_ == 0) throw_errno(ENODEV, "interface " + interface + " does not exist");
  sockaddr_ll address{};
  address.sll_family = AF_PACKET;
  address.sll_protocol = htons(ETH_P_ALL);
  address.sll_ifindex = ifindex_;
  if (::bind(fd_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    throw_errno(errno, "bind(AF_PACKET) on " + interface);
  }
}

bool PacketSocket::send(const std::uint8_t* frame, std::size_t length) {
  return ::send(fd_.get(), frame, length, 0) == static_cast<ssize_t>(length);
}

std::size_t PacketSocket::receive(std::vector<std::uint8_t>& buffer, int timeout_ms) {
  pollfd entry{fd_.get(), POLLIN, 0};
  if (::poll(&entry, 1, timeout_ms) <= 0) return 0;
  buffer.resize(65536);
  sockaddr_ll from{};
  socklen_t from_length = sizeof from;
  const ssize_t n = ::recvfrom(fd_.get(), buffer.data(), buffer.size(), MSG_DONTWAIT,
                               reinterpret_cast<sockaddr*>(&from), &from_length);
  if (n <= 0) return 0;
  if (from.sll_pkttype == PACKET_OUTGOING) return receive(buffer, timeout_ms);  // our own sends
  buffer.resize(static_cast<std::size_t>(n));
  return static_cast<std::size_t>(n);
}

namespace {
constexpr std::uint16_t test_ethertype = 0x88B5;
std::uint8_t pattern(std::uint32_t sequence, std::size_t offset) {
  return static_cast<std::uint8_t>(std::size_t{sequence} * 31U + offset * 7U);
}
}  // namespace

std::vector<std::uint8_t> test_frame(std::uint32_t sequence, std::size_t length,
                                     const MacAddress& dst, const MacAddress& src) {
  std::vector<std::uint8_t> frame(length < 18 ? 18 : length);
  std::copy(dst.begin(), dst.end(), frame.begin());
  std::copy(src.begin(), src.end(), frame.begin() + 6);
  frame[12] = test_ethertype >> 8;
  frame[13] = test_ethertype & 0xff;
  for (int i = 0; i < 4; ++i)
    frame[14 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(sequence >> (24 - 8 * i));
  for (std::size_t i = 18; i < frame.size(); ++i) frame[i] = pattern(sequence, i);
  return frame;
}

bool check_test_frame(const std::uint8_t* frame, std::size_t length, std::uint32_t& sequence) {
  if (length < 18 || frame[12] != (test_ethertype >> 8) || frame[13] != (test_ethertype & 0xff)) {
    return false;
  }
  sequence = (std::uint32_t{frame[14]} << 24) | (std::uint32_t{frame[15]} << 16) |
             (std::uint32_t{frame[16]} << 8) | frame[17];
  for (std::size_t i = 18; i < length; ++i) {
    if (frame[i] != pattern(sequence, i)) return false;
  }
  return true;
}

}  // namespace afxdp::lab

#include <fstream>
#include <linux/ethtool.h>
#include <linux/sockios.h>

namespace afxdp::lab {

void set_gro(const std::string& interface, bool on) {
  ethtool_value value{ETHTOOL_SGRO, on ? 1U : 0U};
  ifreq request{};
  std::strncpy(request.ifr_name, interface.c_str(), IFNAMSIZ - 1);
  request.ifr_data = reinterpret_cast<char*>(&value);
  auto fd = UniqueFd::socket(AF_INET, SOCK_DGRAM, 0);
  if (::ioctl(fd.get(), SIOCETHTOOL, &request) != 0) {
    throw_errno(errno, "ETHTOOL_SGRO on " + interface);
  }
}

void set_threaded_napi(const std::string& interface, bool on) {
  const std::string path = "/sys/class/net/" + interface + "/threaded";
  std::ofstream file(path);
  file << (on ? "1" : "0");
  file.flush();
  if (!file) throw std::runtime_error("cannot write " + path);
}

}  // namespace afxdp::lab
