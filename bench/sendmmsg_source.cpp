// The plain-socket baseline for gen's engines (scripts/gen-engines): the same UDP frame as
// `afxdp gen` sends, through an AF_PACKET socket with PACKET_QDISC_BYPASS, in sendmmsg() batches
// of 64, for a number of seconds. Prints {"sent":N,"duration_s":S} on stdout. Root.
//   sendmmsg_source IF SECONDS [SIZE]
#include "common/packet.hpp"
#include "common/parse.hpp"

#include <afxdp/xsk/interface.hpp>

#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// gen's frame: the interface's MAC to its veth peer's (else broadcast), 198.18.0.1:9 to .2:9.
std::vector<std::uint8_t> gen_frame(const std::string& interface, unsigned ifindex,
                                    std::uint32_t size, afxdp::MacAddress& dst) {
  afxdp::tool::UdpFrameSpec spec;
  spec.size = size;
  spec.src_mac = afxdp::mac_address(interface);
  spec.dst_mac.fill(0xff);
  if (const unsigned peer = afxdp::interface_link(ifindex).link; peer != 0) {
    char name[IF_NAMESIZE] = {};
    if (::if_indextoname(peer, name) != nullptr) spec.dst_mac = afxdp::mac_address(name);
  }
  spec.src_ip = afxdp::tool::parse_ipv4("198.18.0.1", "src");
  spec.dst_ip = afxdp::tool::parse_ipv4("198.18.0.2", "dst");
  spec.src_port = 9;
  spec.dst_port = 9;
  dst = spec.dst_mac;
  std::vector<std::uint8_t> frame(size);
  afxdp::tool::build_udp_frame(spec, frame);
  return frame;
}

// An AF_PACKET socket that sends only, past the qdisc (as pktgen-like senders do).
int packet_socket() {
  const int fd = ::socket(AF_PACKET, SOCK_RAW, 0);  // protocol 0: sends only
  if (fd < 0) throw std::runtime_error(std::string("socket(AF_PACKET): ") + std::strerror(errno));
  const int on = 1;
  if (::setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &on, sizeof on) != 0) {
    throw std::runtime_error(std::string("PACKET_QDISC_BYPASS: ") + std::strerror(errno));
  }
  return fd;
}

// sendmmsg() of `frame` in batches of 64 for `seconds`; the frames the kernel took.
std::uint64_t send_for(int fd, unsigned ifindex, const afxdp::MacAddress& dst,
                       std::vector<std::uint8_t>& frame, double seconds) {
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = static_cast<int>(ifindex);
  to.sll_halen = ETH_ALEN;
  std::memcpy(to.sll_addr, dst.data(), ETH_ALEN);
  constexpr unsigned batch = 64;
  std::array<iovec, batch> data{};
  std::array<mmsghdr, batch> messages{};
  for (unsigned i = 0; i < batch; ++i) {
    data[i] = {frame.data(), frame.size()};
    messages[i].msg_hdr.msg_iov = &data[i];
    messages[i].msg_hdr.msg_iovlen = 1;
    messages[i].msg_hdr.msg_name = &to;
    messages[i].msg_hdr.msg_namelen = sizeof to;
  }
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(seconds));
  std::uint64_t sent = 0;
  while (Clock::now() < end) {
    const int n = ::sendmmsg(fd, messages.data(), batch, 0);
    if (n > 0) sent += static_cast<unsigned>(n);
    if (n < 0 && errno != ENOBUFS && errno != EAGAIN) {
      throw std::runtime_error(std::string("sendmmsg: ") + std::strerror(errno));
    }
  }
  return sent;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: sendmmsg_source IF SECONDS [SIZE]\n");
    return 2;
  }
  try {
    const std::string interface = argv[1];
    const double seconds = std::stod(argv[2]);
    const std::uint32_t size = argc > 3 ? static_cast<std::uint32_t>(std::stoul(argv[3])) : 64;
    const unsigned ifindex = afxdp::interface_index(interface);
    afxdp::MacAddress dst{};
    std::vector<std::uint8_t> frame = gen_frame(interface, ifindex, size, dst);
    const int fd = packet_socket();
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t sent = send_for(fd, ifindex, dst, frame, seconds);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("{\"sent\":%llu,\"duration_s\":%.3f}\n", static_cast<unsigned long long>(sent),
                took);
    ::close(fd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sendmmsg_source: %s\n", e.what());
    return 1;
  }
  return 0;
}
