// libFuzzer target: afxdp::net over any bytes. parse() reads nothing past the input (ASan: the
// copy is exactly its size) and every view it gives lies inside it and agrees with its length
// fields; swap_endpoints() twice is the identity; after update_checksums() every checksum
// verifies and a second parse finds the same headers.
#include <afxdp/net.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using afxdp::net::Headers;
using afxdp::net::HeaderView;

void check(bool ok) {
  if (!ok) std::abort();
}

bool inside(const std::byte* p, std::size_t n, std::span<const std::byte> frame) {
  return p >= frame.data() && n <= frame.size() &&
         static_cast<std::size_t>(p - frame.data()) <= frame.size() - n;
}

void check_views(const Headers& h, std::span<const std::byte> frame) {
  const HeaderView* views[] = {&h.ethernet, &h.vlans[0], &h.vlans[1], &h.arp,  &h.ipv4,
                               &h.ipv6,     &h.udp,      &h.tcp,      &h.icmp, &h.icmpv6};
  for (const HeaderView* v : views) check(!*v || inside(v->data(), v->size(), frame));
  check(inside(h.payload.data(), h.payload.size(), frame));
  check(h.frame.data() == frame.data() && h.frame.size() == frame.size());
  check(int{bool(h.arp)} + bool(h.ipv4) + bool(h.ipv6) <= 1);
  check(int{bool(h.udp)} + bool(h.tcp) + bool(h.icmp) + bool(h.icmpv6) <= 1);
  check(!(h.udp || h.tcp || h.icmp || h.icmpv6) || h.ipv4 || h.ipv6);
  check(!h.icmp || h.ipv4);
  check(!h.icmpv6 || h.ipv6);
  check(!h.ipv4 || (h.ipv4.size() == h.ipv4.header_length() && h.ipv4.version() == 4));
  check(!h.ipv6 || h.ipv6.version() == 6);
  check(!h.tcp || h.tcp.size() == h.tcp.header_length());
  if (h.udp && !h.fragment) check(h.udp.length() == 8 + h.payload.size());
  if (h.udp) check(h.payload.data() == h.udp.data() + 8);
  if (h.tcp) check(h.payload.data() == h.tcp.data() + h.tcp.size());
}

// The same headers at the same places.
bool same(const Headers& a, const Headers& b) {
  return a.ethernet.data() == b.ethernet.data() && a.vlans[0].data() == b.vlans[0].data() &&
         a.vlans[1].data() == b.vlans[1].data() && a.arp.data() == b.arp.data() &&
         a.ipv4.data() == b.ipv4.data() && a.ipv6.data() == b.ipv6.data() &&
         a.udp.data() == b.udp.data() && a.tcp.data() == b.tcp.data() &&
         a.icmp.data() == b.icmp.data() && a.icmpv6.data() == b.icmpv6.data() &&
         a.payload.data() == b.payload.data() && a.payload.size() == b.payload.size() &&
         a.ip_protocol == b.ip_protocol && a.fragment == b.fragment && a.ether_type == b.ether_type;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::byte> frame(size);
  if (size != 0) std::memcpy(frame.data(), data, size);
  const std::vector<std::byte> input = frame;
  Headers h = afxdp::net::parse(frame);
  check(frame == input);  // parse only reads
  check_views(h, frame);

  afxdp::net::swap_endpoints(h);
  afxdp::net::swap_endpoints(h);
  check(frame == input);

  afxdp::net::swap_endpoints(h);
  afxdp::net::update_checksums(h);
  check(afxdp::net::verify_checksums(h));
  const Headers again = afxdp::net::parse(frame);  // no length field was touched
  check(same(h, again));
  return 0;
}
