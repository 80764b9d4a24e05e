// veth has no zero-copy: asking for it must fail with a message that names the interface and
// points to copy mode, not with a bare errno.
#include "expect_throw.hpp"
#include "system_test.hpp"

#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <system_error>

namespace {

TEST(ZeroCopy, RefusedOnVethWithAClearMessage) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::XskProgram program({.interface = veth.b(), .mode = afxdp::AttachMode::native});
  afxdp::Umem umem({.frame_count = 1024});
  const auto bind = [&] {
    afxdp::Socket socket(umem, {.interface = veth.b(), .mode = afxdp::BindMode::native_zero_copy});
  };
  EXPECT_THROW_WITH(bind(), std::system_error, veth.b());
  EXPECT_THROW_WITH(bind(), std::system_error, "copy mode");
}

// A refused bind must not spoil the Umem: the caller's natural next step is copy mode on it.
TEST(ZeroCopy, RefusalLeavesTheUmemBindableInCopyMode) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 1024});
  EXPECT_THROW(
      afxdp::Socket(umem, {.interface = veth.b(), .mode = afxdp::BindMode::native_zero_copy}),
      std::system_error);
  afxdp::Socket socket(umem, {.interface = veth.b(), .mode = afxdp::BindMode::native_copy});
  EXPECT_FALSE(socket.zero_copy());
  EXPECT_EQ(socket.fd(), umem.fd());  // it is the Umem's first socket, not a sharer
}

// The automatic mode takes zero-copy where the driver has it, else copy: on veth, copy.
TEST(ZeroCopy, AutomaticFallsBackToCopyOnVeth) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  afxdp::Umem umem({.frame_count = 1024});
  afxdp::Socket socket(umem, {.interface = veth.b(), .mode = afxdp::BindMode::automatic});
  EXPECT_FALSE(socket.zero_copy());
}

}  // namespace
