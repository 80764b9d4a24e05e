// The smallest end-to-end check: test frames sent into one end of a veth pair arrive, intact,
// on an AF_XDP socket at the other end (native mode), each in a chunk we lent (Umem::chunk_of).
#include "system_test.hpp"

#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>
#include <poll.h>

TEST(MinimalRx, FramesArriveIntact) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 4096});
  afxdp::Socket socket(umem, {.interface = veth.b(), .mode = afxdp::BindMode::native_copy});
  afxdp::XskProgram program({.interface = veth.b(), .mode = afxdp::AttachMode::native});
  program.insert(0, socket.fd());
  afxdp::FillRing& fill = socket.fill();
  ASSERT_EQ(fill.reserve(2048), 2048U);
  for (std::uint32_t i = 0; i < 2048; ++i) fill.at(i) = std::uint64_t{i} * 4096;
  fill.submit(2048);

  afxdp::lab::PacketSocket peer(veth.a());
  const auto dst = afxdp::mac_address(veth.b());
  const auto src = afxdp::mac_address(veth.a());
  for (std::uint32_t i = 0; i < 100; ++i) {
    const auto frame = afxdp::lab::test_frame(i, 128, dst, src);
    ASSERT_TRUE(peer.send(frame.data(), frame.size()));
  }
  std::uint32_t intact = 0;
  std::uint32_t lent_chunks = 0;  // intact frames whose chunk_of is a chunk we lent
  for (int spins = 0; spins < 1000 && intact < 100; ++spins) {
    const std::uint32_t n = socket.rx().peek(64);
    for (std::uint32_t i = 0; i < n; ++i) {
      const xdp_desc& d = socket.rx().at(i);
      // The kernel writes the frame after its headroom: the address is inside the chunk, not at
      // its start, and chunk_of finds the address we lent in the fill ring.
      const std::uint64_t chunk = umem.chunk_of(d.addr);
      const bool lent =
          chunk % 4096 == 0 && chunk < 2048ULL * 4096 && d.addr > chunk && d.addr - chunk < 4096;
      std::uint32_t sequence = 0;
      if (afxdp::lab::check_test_frame(reinterpret_cast<const std::uint8_t*>(umem.data(d.addr)),
                                       d.len, sequence) &&
          sequence == intact) {
        ++intact;
        if (lent) ++lent_chunks;
      }
    }
    socket.rx().release(n);
    if (n == 0) socket.poll(POLLIN, 10);
  }
  EXPECT_EQ(intact, 100U);
  EXPECT_EQ(lent_chunks, intact);
}
