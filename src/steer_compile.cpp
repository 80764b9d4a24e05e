#include <afxdp/net/headers.hpp>

#include "steer_compile.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <cstring>
#include <netinet/in.h>
#include <stdexcept>
#include <string>
#include <utility>

namespace afxdp::detail {
namespace {

constexpr std::uint16_t ether_ip = net::ether_type_ipv4;
constexpr std::uint16_t ether_ip6 = net::ether_type_ipv6;

// The cells that hold `t` when it is only (IPv4, IPv6 or either) + (UDP, TCP, SCTP or any of
// them) + a destination port or range, untagged; 0 for every other shape. Without a protocol
// or family, a port means every cell: the program reads ports of those three over IP only.
std::uint8_t cells_of(const MatchTerm& t) {
  if (t.vlan_tags != 0 || t.vlan_ids[0] || t.vlan_ids[1] || t.src_net || t.dst_net || t.net ||
      t.src_port || t.port || !t.dst_port) {
    return 0;
  }
  unsigned families = 3;  // bit 0 IPv4, bit 1 IPv6
  if (t.ethertype) {
    if (*t.ethertype != ether_ip && *t.ethertype != ether_ip6) return 0;
    families = *t.ethertype == ether_ip ? 1U : 2U;
  }
  unsigned protocols = 7;  // UDP, TCP, SCTP
  if (t.protocol) {
    const std::array<std::uint8_t, 3> numbers{IPPROTO_UDP, IPPROTO_TCP, IPPROTO_SCTP};
    const auto* it = std::find(numbers.begin(), numbers.end(), *t.protocol);
    if (it == numbers.end()) return 0;
    protocols = 1U << static_cast<unsigned>(it - numbers.begin());
  }
  unsigned cells = 0;
  for (unsigned p = 0; p < 3; ++p) {
    for (unsigned f = 0; f < 2; ++f) {
      if (((protocols >> p) & 1U) != 0 && ((families >> f) & 1U) != 0) cells |= 1U << (p * 2 + f);
    }
  }
  return static_cast<std::uint8_t>(cells);
}

void set_prefix(std::uint8_t* mask, std::uint8_t* value, const IpPrefix& p) {
  for (unsigned bit = 0; bit < p.length; ++bit) {
    mask[bit / 8] = static_cast<std::uint8_t>(mask[bit / 8] | (0x80U >> (bit % 8)));
  }
  for (unsigned i = 0; i < 16; ++i) value[i] = p.address.at(i) & mask[i];
}

// [first, last] as prefix-aligned blocks: (value, mask) pairs.
std::vector<std::pair<std::uint16_t, std::uint16_t>> port_blocks(PortRange r) {
  std::vector<std::pair<std::uint16_t, std::uint16_t>> blocks;
  std::uint32_t at = r.first;
  while (at <= r.last) {
    std::uint32_t size = at == 0 ? 0x10000 : (at & (~at + 1));
    while (at + size - 1 > r.last) size /= 2;
    blocks.emplace_back(static_cast<std::uint16_t>(at), static_cast<std::uint16_t>(~(size - 1)));
    at += size;
  }
  return blocks;
}

// The entries of one alternative with directions fixed, before port blocks.
SteerEntry base_entry(const MatchTerm& t) {
  SteerEntry e;
  if (t == MatchTerm{}) return e;  // every frame, tagged or not: an all-zero mask
  e.mask.flags = AFXDP_STEER_TAG1 | AFXDP_STEER_TAG2;
  if (t.vlan_tags >= 1) e.value.flags |= AFXDP_STEER_TAG1;
  if (t.vlan_tags >= 2) e.value.flags |= AFXDP_STEER_TAG2;
  if (t.vlan_ids[0]) {
    e.mask.vlan_outer = htons(0x0fff);
    e.value.vlan_outer = htons(*t.vlan_ids[0]);
  }
  if (t.vlan_ids[1]) {
    e.mask.vlan_inner = htons(0x0fff);
    e.value.vlan_inner = htons(*t.vlan_ids[1]);
  }
  if (t.ethertype) {
    e.mask.ethertype = 0xffff;
    e.value.ethertype = htons(*t.ethertype);
  }
  if (t.protocol) {
    e.mask.proto = 0xff;
    e.value.proto = *t.protocol;
  }
  // The protocol and the addresses are an IP header's: a frame without one has neither (its
  // proto 0 is no protocol, issue 41).
  if (t.protocol || t.src_net || t.dst_net) {
    e.mask.flags |= AFXDP_STEER_IP;
    e.value.flags |= AFXDP_STEER_IP;
  }
  if (t.src_net) set_prefix(e.mask.src, e.value.src, *t.src_net);
  if (t.dst_net) set_prefix(e.mask.dst, e.value.dst, *t.dst_net);
  return e;
}

void add_ports(std::vector<SteerEntry>& out, SteerEntry e, const std::optional<PortRange>& src,
               const std::optional<PortRange>& dst) {
  if (src || dst) {
    e.mask.flags |= AFXDP_STEER_PORTS | AFXDP_STEER_IP;
    e.value.flags |= AFXDP_STEER_PORTS | AFXDP_STEER_IP;
  }
  const auto any = std::vector<std::pair<std::uint16_t, std::uint16_t>>{{0, 0}};
  for (const auto& [sv, sm] : src ? port_blocks(*src) : any) {
    for (const auto& [dv, dm] : dst ? port_blocks(*dst) : any) {
      SteerEntry x = e;
      x.mask.sport = htons(sm);
      x.value.sport = htons(sv & sm);
      x.mask.dport = htons(dm);
      x.value.dport = htons(dv & dm);
      out.push_back(x);
      if (out.size() > max_steer_entries_per_rule) return;
    }
  }
}

}  // namespace

CompiledRule compile(const Match& match) {
  CompiledRule c;
  std::vector<SteerEntry>& out = c.entries;
  for (MatchTerm t : match.alternatives()) {
    // Either direction: the alternative once with each direction.
    std::vector<MatchTerm> directed;
    for (int n = 0; n < (t.net ? 2 : 1); ++n) {
      MatchTerm d = t;
      if (t.net) (n == 0 ? d.src_net : d.dst_net) = t.net;
      d.net.reset();
      for (int p = 0; p < (t.port ? 2 : 1); ++p) {
        MatchTerm x = d;
        if (t.port) (p == 0 ? x.src_port : x.dst_port) = t.port;
        x.port.reset();
        directed.push_back(x);
      }
    }
    for (const MatchTerm& d : directed) {
      if (const std::uint8_t cells = cells_of(d); cells != 0) {
        c.ports.push_back({.cells = cells, .ports = *d.dst_port});
      } else {
        add_ports(out, base_entry(d), d.src_port, d.dst_port);
      }
    }
    if (out.size() > max_steer_entries_per_rule) {
      throw std::invalid_argument("steering: '" + match.str() + "' needs more than " +
                                  std::to_string(max_steer_entries_per_rule) +
                                  " table entries (port ranges as aligned blocks)");
    }
  }
  return c;
}

SteerSignature signature_of(std::uint32_t shape, const afxdp_steer_tuple& mask,
                            const afxdp_steer_tuple& value) {
  return {.shape = shape,
          .flags_mask = mask.flags,
          .flags = value.flags,
          .proto_mask = mask.proto,
          .proto = value.proto,
          .ether_mask = mask.ethertype,
          .ether = value.ethertype};
}

afxdp_steer_filter filter_of(const std::map<SteerSignature, std::uint32_t>& signatures) {
  afxdp_steer_filter f{};
  for (const auto& [sig, count] : signatures) {
    const std::uint32_t bit = 1U << sig.shape;
    for (unsigned v = 0; v < std::size(f.by_flags); ++v) {
      if ((v & sig.flags_mask) == sig.flags) f.by_flags[v] |= bit;
    }
    for (unsigned v = 0; v < std::size(f.by_proto); ++v) {
      if ((v & sig.proto_mask) == sig.proto) f.by_proto[v] |= bit;
    }
    for (unsigned v = 0; v < std::size(f.by_ethertype); ++v) {
      if (sig.ether_mask != 0xffff || v == AFXDP_STEER_ETHER_FOLD(unsigned{sig.ether})) {
        f.by_ethertype[v] |= bit;
      }
    }
  }
  return f;
}

}  // namespace afxdp::detail
