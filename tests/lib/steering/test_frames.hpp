// Crafted frames for the steering tests and benchmark: Ethernet, VLAN tags, IPv4/IPv6 (with
// extension headers and fragments), TCP/UDP, written byte by byte from the protocol layouts.
#pragma once

#include <arpa/inet.h>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace afxdp::test {

struct FrameSpec {
  std::vector<std::uint16_t> tags{};  // VLAN ids, outer first (outer 802.1ad when two)
  std::uint16_t ethertype = 0x0800;
  std::string src = "192.0.2.1";
  std::string dst = "192.0.2.2";
  std::uint8_t proto = 17;
  std::uint16_t sport = 1000;
  std::uint16_t dport = 7777;
  std::vector<std::uint8_t> ext{};  // IPv6 extension headers in front of proto (0, 43, 44, 51, 60)
  std::uint16_t fragment = 0;       // fragment offset in 8-byte units (IPv4 and the IPv6 one)
  bool more_fragments = false;      // the MF / M flag (IPv4; IPv6's fragment header)
  std::size_t payload = 18;
  std::uint8_t version = 0;  // the IP header's version nibble; 0: the EtherType's (4 or 6)
};

inline void put16(std::vector<std::uint8_t>& f, std::uint16_t v) {
  f.push_back(static_cast<std::uint8_t>(v >> 8));
  f.push_back(static_cast<std::uint8_t>(v));
}

inline void put_address(std::vector<std::uint8_t>& f, const std::string& text, bool v6) {
  std::array<std::uint8_t, 16> a{};
  inet_pton(v6 ? AF_INET6 : AF_INET, text.c_str(), a.data());
  f.insert(f.end(), a.begin(), a.begin() + (v6 ? 16 : 4));
}

inline std::vector<std::uint8_t> frame(const FrameSpec& s) {
  std::vector<std::uint8_t> f = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
  for (std::size_t i = 0; i < s.tags.size(); ++i) {
    put16(f, s.tags.size() == 2 && i == 0 ? 0x88a8 : 0x8100);
    put16(f, static_cast<std::uint16_t>(0x2000 | s.tags[i]));  // priority 1: not part of the id
  }
  put16(f, s.ethertype);
  const bool l4 = s.proto == 6 || s.proto == 17 || s.proto == 132;  // SCTP: ports first too
  const std::size_t l4_size = (s.proto == 6 ? 20 : s.proto == 132 ? 12 : 8) + s.payload;
  if (s.ethertype == 0x0800) {
    f.insert(f.end(), {static_cast<std::uint8_t>(s.version == 0 ? 0x45 : s.version << 4 | 5), 0});
    put16(f, static_cast<std::uint16_t>(20 + l4_size));
    f.insert(f.end(), {0, 1});
    put16(f, static_cast<std::uint16_t>(s.fragment | (s.more_fragments ? 0x2000 : 0)));
    f.insert(f.end(), {64, s.proto, 0, 0});
    put_address(f, s.src, false);
    put_address(f, s.dst, false);
  } else if (s.ethertype == 0x86dd) {
    f.insert(f.end(), {static_cast<std::uint8_t>(s.version == 0 ? 0x60 : s.version << 4), 0, 0, 0});
    put16(f, static_cast<std::uint16_t>(s.ext.size() * 8 + l4_size));
    f.push_back(s.ext.empty() ? s.proto : s.ext.front());
    f.push_back(64);
    put_address(f, s.src, true);
    put_address(f, s.dst, true);
    for (std::size_t i = 0; i < s.ext.size(); ++i) {
      f.push_back(i + 1 < s.ext.size() ? s.ext[i + 1] : s.proto);
      if (s.ext[i] == 44) {
        f.push_back(0);
        put16(f, static_cast<std::uint16_t>((s.fragment << 3) | (s.more_fragments ? 1 : 0)));
        f.insert(f.end(), {0, 0, 0, 1});
      } else {
        f.insert(f.end(), {0, 1, 4, 0, 0, 0, 0});  // 8 bytes: a PadN option
      }
    }
  } else {
    f.resize(f.size() + 28);  // an ARP body or anything else
    return f;
  }
  if (l4) {
    put16(f, s.sport);
    put16(f, s.dport);
    f.resize(f.size() + l4_size - 4);
  }
  return f;
}

}  // namespace afxdp::test
