// A veth pair with MTU 9000 on both ends, for the multi-buffer tests.
#pragma once

#include <lab.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace afxdp::test {

constexpr unsigned jumbo_mtu = 9000;
constexpr std::size_t jumbo_frame = jumbo_mtu + 14;  // the longest frame on the wire

inline afxdp::lab::VethPair jumbo_veth() {
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  for (const std::string& end : {veth.a(), veth.b()}) {
    afxdp::lab::run({"ip", "link", "set", "dev", end, "mtu", std::to_string(jumbo_mtu)});
  }
  return veth;
}

// Frame i's length: every third the longest, the rest spread from 60 up.
inline std::size_t jumbo_size(std::uint32_t i) {
  return i % 3 == 0 ? jumbo_frame : 60 + (std::size_t{i} * 977) % (jumbo_frame - 60);
}

}  // namespace afxdp::test
