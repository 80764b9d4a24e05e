// Does what the interface may receive fit the UMEM frames? Checked before anything is attached:
// without -F a frame longer than a UMEM frame's room is dropped by the kernel (rx_dropped), and
// on veth a program without frags support is refused in native mode at such an MTU.
#pragma once

#include <afxdp/interface.hpp>

#include <linux/bpf.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace afxdp::tool {

inline void check_frame_fits_mtu(const std::string& interface, std::uint32_t frame_size,
                                 bool frags) {
  if (frags) return;
  interface_index(interface);  // "interface X does not exist" first
  const unsigned mtu = interface_mtu(interface);
  const std::uint32_t room = frame_size - XDP_PACKET_HEADROOM;  // the kernel writes after headroom
  if (mtu + 14 > room) {
    throw std::invalid_argument("frame size (-f " + std::to_string(frame_size) +
                                "): " + std::to_string(room) +
                                " bytes of a packet fit in a frame, but " + interface + "'s MTU " +
                                std::to_string(mtu) + " lets " + std::to_string(mtu + 14) +
                                "-byte frames arrive; use -F (multi-buffer) or a smaller MTU");
  }
}

// txpush -s: a frame longer than the MTU (plus the Ethernet header and any VLAN tag) is dropped
// by the receiver, while the sender counts it as sent.
inline void check_packet_fits_mtu(const std::string& interface, std::uint32_t packet_size,
                                  bool vlan) {
  interface_index(interface);  // "interface X does not exist" first
  const unsigned mtu = interface_mtu(interface);
  const std::uint32_t most = mtu + 14 + (vlan ? 4 : 0);
  if (packet_size > most) {
    throw std::invalid_argument("packet size (-s): " + std::to_string(packet_size) +
                                " is larger than " + interface + "'s MTU " + std::to_string(mtu) +
                                " allows (" + std::to_string(most) + " bytes with the headers)");
  }
}

}  // namespace afxdp::tool
