// The steering rule compiler: what a Match becomes in the redirect program's tables, before any
// of it is written. Pure (no BPF, no kernel): src/steering.cpp keeps the slots and writes the
// maps; tests/lib/steering/steer_compile_test.cpp checks the output without root.
#pragma once

#include <afxdp/steering/match.hpp>

#include "xsk_steer_shared.h"

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace afxdp::detail {

// The most (mask, value) entries one rule may expand into: port ranges become prefix-aligned
// blocks, either-direction ports and nets two alternatives each.
constexpr std::size_t max_steer_entries_per_rule = 1024;

// One hash entry: frames whose tuple & mask equals value (value is already masked).
struct SteerEntry {
  afxdp_steer_tuple mask{};
  afxdp_steer_tuple value{};
};

// A rule's part on the fast path: destination ports [first, last] in some cells of the port
// table (bit proto index * 2 + IPv6; proto index 0 UDP, 1 TCP, 2 SCTP).
struct SteerPortCells {
  std::uint8_t cells = 0;
  PortRange ports;
};

struct CompiledRule {
  std::vector<SteerEntry> entries;    // the hash shapes
  std::vector<SteerPortCells> ports;  // the port table
};

// Throws std::invalid_argument when `match` needs more than max_steer_entries_per_rule entries.
CompiledRule compile(const Match& match);

// What the program's filter needs of one entry: its shape and its fixed fields under the mask.
struct SteerSignature {
  std::uint32_t shape = 0;
  std::uint8_t flags_mask = 0, flags = 0, proto_mask = 0, proto = 0;
  std::uint16_t ether_mask = 0, ether = 0;
  auto operator<=>(const SteerSignature&) const = default;
};

SteerSignature signature_of(std::uint32_t shape, const afxdp_steer_tuple& mask,
                            const afxdp_steer_tuple& value);

// The shapes each fixed field's value leaves in play, for the entries counted in `signatures`
// (a superset: a field a shape does not mask fully leaves it in play for every value).
afxdp_steer_filter filter_of(const std::map<SteerSignature, std::uint32_t>& signatures);

}  // namespace afxdp::detail
