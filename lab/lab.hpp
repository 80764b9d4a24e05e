// The private network this project's tests, demo and examples run on: a network namespace of
// their own (gone when the process exits, whatever kills it) with veth pairs in it. Traffic never
// leaves it; no interface outside it is touched.
#pragma once

#include <afxdp/net/mac_address.hpp>
#include <afxdp/xsk/interface.hpp>  // mac_address, to address test frames
#include <afxdp/xsk/privilege.hpp>
#include <afxdp/xsk/unique_fd.hpp>

#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace afxdp::lab {

// Move this process into a new network namespace and a new mount namespace with its own /sys,
// so that sysfs shows the new namespace's interfaces. Call before starting threads.
void enter_private_network();

// Run a command (argv[0] searched in PATH), throwing std::runtime_error with its stderr on failure.
void run(const std::vector<std::string>& argv);

// A veth pair; deleted by the destructor (deleting one end deletes both).
class VethPair {
 public:
  // Names are "<prefix>a" and "<prefix>b"; both up, with `queues` rx and tx queues each.
  VethPair(const std::string& prefix, std::uint32_t queues = 1);
  VethPair(VethPair&& other) noexcept;
  VethPair& operator=(VethPair&&) = delete;
  VethPair(const VethPair&) = delete;
  ~VethPair();

  [[nodiscard]] const std::string& a() const noexcept { return a_; }
  [[nodiscard]] const std::string& b() const noexcept { return b_; }
  [[nodiscard]] std::uint32_t queues() const noexcept { return queues_; }

 private:
  std::string a_, b_;
  std::uint32_t queues_ = 1;
};

// A name prefix unique to this process and call: "x<pid>n<counter>" (fits IFNAMSIZ with a suffix).
std::string unique_prefix();

// A peer host that uses kernel sockets only: a network namespace of its own named `name`, holding
// `interface` (the far end of a veth pair, moved there), up, with `addresses` ("10.0.0.2/24",
// "2001:db8::2/64"; IPv6 ones without duplicate address detection) and lo up. The destructor
// deletes the namespace, and the interface with it.
class PeerNamespace {
 public:
  PeerNamespace(std::string name, const std::string& interface,
                const std::vector<std::string>& addresses);
  PeerNamespace(const PeerNamespace&) = delete;
  PeerNamespace& operator=(const PeerNamespace&) = delete;
  ~PeerNamespace();

  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  // fn() on a thread of its own inside the namespace (sockets it makes stay there); fn does not
  // run when the namespace cannot be entered.
  template <class F>
  [[nodiscard]] std::thread start(F fn) const {
    return std::thread([path = "/run/netns/" + name_, fn = std::move(fn)]() mutable {
      if (enter(path)) fn();
    });
  }

 private:
  static bool enter(const std::string& path) noexcept;
  void remove() noexcept;
  std::string name_;
};

}  // namespace afxdp::lab

namespace afxdp::lab {

// A raw AF_PACKET socket on one interface: the peer side of tests (send and capture frames the
// ordinary way, independent of AF_XDP).
class PacketSocket {
 public:
  explicit PacketSocket(const std::string& interface);
  // Send one frame; false when the kernel refused it (ENOBUFS...).
  bool send(const std::uint8_t* frame, std::size_t length);
  // Receive one frame into `buffer`, waiting up to timeout_ms; returns its length, 0 on timeout.
  std::size_t receive(std::vector<std::uint8_t>& buffer, int timeout_ms);
  [[nodiscard]] int fd() const noexcept { return fd_.get(); }

 private:
  UniqueFd fd_;
  int ifindex_ = 0;
};

// A test frame: Ethernet header (dst, src, ethertype 0x88B5, IEEE's local experimental type,
// which no stack acts on), then the 32-bit sequence number, then bytes derived from it, so a
// receiver can check every byte. length >= 18.
std::vector<std::uint8_t> test_frame(std::uint32_t sequence, std::size_t length,
                                     const MacAddress& dst, const MacAddress& src);
// The sequence number of a test frame if all its bytes are as test_frame wrote them.
bool check_test_frame(const std::uint8_t* frame, std::size_t length, std::uint32_t& sequence);

}  // namespace afxdp::lab

namespace afxdp::lab {

// Where the kernel does a veth's receive work. GRO on gives the veth a NAPI instance of its own
// (so frames XDP_TX'd or redirected into its peer are accepted even without a native XDP program
// there); threaded NAPI runs it in a kthread "napi/<if>-<id>" that can be pinned to a CPU.
void set_gro(const std::string& interface, bool on);
void set_threaded_napi(const std::string& interface, bool on);
// The pids of `interface`'s threaded-NAPI kthreads in this network namespace (netdev netlink
// napi-get, Linux 6.8+; a kthread's name or namespace cannot tell). Throws std::system_error
// when the kernel cannot say.
std::vector<int> napi_thread_pids(const std::string& interface);
// Pin every NAPI kthread of `interface` (napi_thread_pids); returns how many were pinned, 0 on a
// kernel that cannot say which they are.
int pin_napi_threads(const std::string& interface, unsigned cpu);

}  // namespace afxdp::lab
