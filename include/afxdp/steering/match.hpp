// afxdp::Match: which frames a steering rule takes, in a small pcap-like grammar.
//
//   auto m = afxdp::Match::parse("udp dst port 7777 or tcp port 443");
//
// A Match is a list of alternatives (`or`); each alternative is a conjunction (`and`) of
// constraints on fields the redirect program reads: VLAN tags, EtherType, IPv4/IPv6 source and
// destination prefixes, IP protocol, TCP/UDP/SCTP source and destination ports or port ranges.
// The grammar, its meaning and its limits are in docs/api.md "Steering".
//
// Threading: a value type; parse and str are pure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace afxdp {

// An address prefix; `address` holds 4 bytes (IPv4) or 16, host bits zero.
struct IpPrefix {
  bool v6 = false;
  std::array<std::uint8_t, 16> address{};
  std::uint8_t length = 0;  // 0..32 or 0..128
  bool operator==(const IpPrefix&) const = default;
};

struct PortRange {
  std::uint16_t first = 0;
  std::uint16_t last = 0;  // inclusive, >= first
  bool operator==(const PortRange&) const = default;
};

// One alternative: a frame matches when every field that is set matches. Unset: any value.
struct MatchTerm {
  std::uint8_t vlan_tags = 0;  // the VLAN tags the frame carries: 0, 1 (802.1Q) or 2 (QinQ)
  std::array<std::optional<std::uint16_t>, 2> vlan_ids{};  // outer, inner
  std::optional<std::uint16_t> ethertype;                  // after the tags (0x0800, 0x86dd, ...)
  std::optional<std::uint8_t> protocol;                    // IPv4 protocol / IPv6 next header
  std::optional<IpPrefix> src_net, dst_net;
  std::optional<IpPrefix> net;  // either direction
  std::optional<PortRange> src_port, dst_port;
  std::optional<PortRange> port;  // either direction
  bool operator==(const MatchTerm&) const = default;
};

class Match {
 public:
  // Every frame (one alternative that constrains nothing); also what parse("") gives.
  Match();
  // Holds what parse guarantees: throws std::invalid_argument naming the alternative, the field
  // and the rule for a term parse could not give (a reversed range, a /33, VLAN id 4096, ...).
  explicit Match(std::vector<MatchTerm> alternatives);

  // Throws std::invalid_argument naming the offending word and its 1-based character position:
  // an unknown word, a bad number, address or range, and contradictions (`arp and udp`).
  static Match parse(std::string_view expression);

  // The canonical form: parse(m.str()) == m.
  [[nodiscard]] std::string str() const;
  [[nodiscard]] const std::vector<MatchTerm>& alternatives() const noexcept {
    return alternatives_;
  }
  bool operator==(const Match&) const = default;

 private:
  std::vector<MatchTerm> alternatives_;
};

}  // namespace afxdp
