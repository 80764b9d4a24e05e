// The redirect program lives exactly as long as its owner: a process holding one that is killed
// with SIGKILL leaves nothing attached (the bpf_link dies with its last fd).
#include "forked_child.hpp"
#include "system_test.hpp"

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/xsk_program.hpp>
#include <lab.hpp>

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

TEST(ProgramLifetime, KilledOwnerLeavesNothingAttached) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned ifindex = afxdp::interface_index(veth.b());
  ASSERT_EQ(afxdp::attached_xdp_program(ifindex), 0U);

  // The child's whole life: attach, say so, wait to be killed.
  afxdp::test::ForkedChild child([&veth](const afxdp::test::ForkedChild::Pipe& pipe) {
    afxdp::XskProgram program({.interface = veth.b(), .mode = afxdp::AttachMode::native});
    if (!pipe.say("A")) return 2;
    for (;;) ::pause();
  });
  const std::string verdict = child.read(256, std::chrono::seconds(5));

  // Attached while the child lives; checked before the kill so the test can fail.
  const std::uint32_t while_alive = afxdp::attached_xdp_program(ifindex);
  const int status = child.kill();
  ASSERT_FALSE(verdict.empty()) << "the child never reported";
  ASSERT_EQ(verdict, "A") << "the child could not attach";
  EXPECT_NE(while_alive, 0U);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  // The link is released when the dead process's files are closed, which may be deferred.
  std::uint32_t after = afxdp::attached_xdp_program(ifindex);
  for (int i = 0; i < 40 && after != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    after = afxdp::attached_xdp_program(ifindex);
  }
  EXPECT_EQ(after, 0U) << "program " << after << " still attached after its owner was killed";
}

// The same, in process: destroying the XskProgram detaches it.
TEST(ProgramLifetime, DestructorDetaches) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned ifindex = afxdp::interface_index(veth.b());
  {
    afxdp::XskProgram program({.interface = veth.b(), .mode = afxdp::AttachMode::skb});
    EXPECT_EQ(afxdp::attached_xdp_program(ifindex), program.program_id());
    EXPECT_NE(program.program_id(), 0U);
  }
  EXPECT_EQ(afxdp::attached_xdp_program(ifindex), 0U);
}

// Made with attach = false, the program is attached only by attach(), once; Port::open relies on
// it to fill the XSKMAP and rules first.
TEST(ProgramLifetime, AttachedOnlyByAttachAndOnlyOnce) {
  AFXDP_REQUIRE_SYSTEM();
  afxdp::lab::VethPair veth(afxdp::lab::unique_prefix());
  const unsigned ifindex = afxdp::interface_index(veth.b());
  afxdp::XskProgram program({.interface = veth.b(), .attach = false});
  EXPECT_EQ(afxdp::attached_xdp_program(ifindex), 0U);
  EXPECT_EQ(program.program_id(), 0U);
  program.attach();
  EXPECT_NE(afxdp::attached_xdp_program(ifindex), 0U);
  EXPECT_EQ(program.program_id(), afxdp::attached_xdp_program(ifindex));
  EXPECT_THROW(program.attach(), std::logic_error);
}

}  // namespace
