// The kernel's cases that attach a program of their own (XDP_DROP_HALF, XDP_METADATA_COPY,
// XDP_SHARED_UMEM, XDP_ADJUST_TAIL_SHRINK/GROW and their _MULTI_BUFF variants), through
// XskProgram::from_object, and from_object's refusals.
#include "harness.hpp"

#include "conformance_meta.h"
#include "conformance_skeleton.hpp"
#include "expect_throw.hpp"
#include "probes.hpp"

#include <afxdp/port.hpp>
#include <afxdp/xsk/interface.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <memory>
#include <stdexcept>
#include <string>

namespace afxdp::conformance {
namespace {

// A Link whose ends run `program` of the skeleton (loaded alone) instead of the redirect program,
// each its own copy of the object (its own XSKMAP and counters), as the kernel's test attaches
// the case's program on both ends (xsk_attach_xdp_progs: test->xdp_prog_rx and xdp_prog_tx, each
// from its ifobject's skeleton). `skeleton` is the receiving end's, whose counters a case reads.
struct ProgramLink {
  ProgramLink(const lab::VethPair& veth, const Mode& mode, const char* program,
              const LinkSetup& setup = {})
      : skeleton(load_programs({program})),
        a_skeleton(load_programs({program})),
        link(veth, mode, without_programs(setup)) {
    link.a_program.emplace(XskProgram::from_object(a_skeleton->obj, program, "xsks",
                                                   {.interface = veth.a(), .mode = mode.attach}));
    link.a_program->insert(0, link.a.fd());
    link.b_program.emplace(XskProgram::from_object(skeleton->obj, program, "xsks",
                                                   {.interface = veth.b(), .mode = mode.attach}));
    link.b_program->insert(0, link.b.fd());
  }
  static LinkSetup without_programs(LinkSetup setup) {
    setup.attach_programs = false;
    return setup;
  }
  Skeleton skeleton, a_skeleton;
  Link link;
};

TEST_P(Conformance, XDP_DROP_HALF) {
  AFXDP_REQUIRE_SYSTEM();
  const auto veth = make_veth(GetParam());
  ProgramLink p(veth, GetParam(), "drop_half");
  EXPECT_EQ(attached_xdp_program(interface_index(veth.a())), p.link.a_program->program_id())
      << "the case's program on the sending end too, as the kernel's";
  const auto stream = uniform_stream(default_packets, min_packet);
  Sender sender = sender_on(p.link.a, p.link.b, stream, p.link.setup);
  Receiver receiver = receiver_on(p.link.b, p.link.setup);
  receiver.lend();
  expect_valid(receiver, sender, stream, [](std::uint32_t i) { return i % 2 == 0; });
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  EXPECT_EQ(p.skeleton->bss->drop_seen, default_packets);
  EXPECT_EQ(p.link.b.statistics().rx_dropped, 0U);  // dropped by the program, not the socket
}

TEST_P(Conformance, XDP_METADATA_COPY) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::xdp_adjust_meta());
  const auto veth = make_veth(GetParam());
  ProgramLink p(veth, GetParam(), "populate_metadata");
  const auto stream = uniform_stream(default_packets, min_packet);
  Sender sender = sender_on(p.link.a, p.link.b, stream, p.link.setup);
  Receiver receiver = receiver_on(p.link.b, p.link.setup);
  receiver.lend();
  receiver.check_metadata(true);
  expect_valid(receiver, sender, stream);
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  EXPECT_EQ(p.skeleton->bss->meta_count, default_packets);
}

// The same at MTU 9000 with XDP_USE_SG on both sockets and the program's xdp.frags variant, as the
// kernel's case: the default stream, each count exact.
TEST_P(Conformance, XDP_METADATA_COPY_MULTI_BUFF) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  AFXDP_REQUIRE_FACILITY(afxdp::test::xdp_adjust_meta());
  const auto veth = jumbo_veth(GetParam());
  ProgramLink p(veth, GetParam(), "populate_metadata_frags", {.multi_buffer = true});
  const auto stream = uniform_stream(default_packets, min_packet);
  Sender sender = sender_on(p.link.a, p.link.b, stream, p.link.setup);
  Receiver receiver = receiver_on(p.link.b, p.link.setup);
  receiver.lend();
  receiver.check_metadata(true);
  expect_valid(receiver, sender, stream);
  EXPECT_EQ(run_traffic(sender, {&receiver}), "");
  EXPECT_EQ(p.skeleton->bss->meta_count, default_packets);
}

// XDP_ADJUST_TAIL_SHRINK/GROW and their _MULTI_BUFF variants: one batch (64) of `sent_len`-byte
// packets whose tail the program moves by `adjust` bytes; each arrives in order with the length
// changed by exactly that and the sender's bytes before the new tail intact. Multi-buffer: MTU
// 9000, both sockets XDP_USE_SG, the program's xdp.frags variant, each packet sent as a chain.
void adjust_tail(const Mode& mode, std::int32_t adjust, std::uint32_t sent_len = 2 * min_packet,
                 bool multi_buffer = false) {
  AFXDP_REQUIRE_FACILITY(afxdp::test::xdp_adjust_tail());
  if (multi_buffer) AFXDP_REQUIRE_FACILITY(afxdp::test::multi_buffer());
  const auto veth = multi_buffer ? jumbo_veth(mode) : make_veth(mode);
  ProgramLink p(veth, mode, multi_buffer ? "adjust_tail_frags" : "adjust_tail",
                {.multi_buffer = multi_buffer});
  p.skeleton->bss->tail_adjust = adjust;
  const std::uint32_t received_len =
      static_cast<std::uint32_t>(static_cast<std::int32_t>(sent_len) + adjust);
  const auto stream = uniform_stream(batch, sent_len);
  Sender sender = sender_on(p.link.a, p.link.b, stream, p.link.setup);
  Receiver receiver = receiver_on(p.link.b, p.link.setup);
  receiver.lend();
  if (adjust > 0) receiver.added_tail(static_cast<std::uint32_t>(adjust));
  std::vector<std::uint32_t> sequences(batch);
  for (std::uint32_t i = 0; i < batch; ++i) sequences[i] = i;
  receiver.expect(sequences, std::vector<std::uint32_t>(batch, received_len));
  const std::string result = run_traffic(sender, {&receiver});
  // As the kernel's case: the helper saying -EOPNOTSUPP (resizing not supported) skips; any other
  // refusal drops the frame and fails. One exception, veth's native XDP: it hands the program the
  // peer's skb with that skb's own tailroom (veth_convert_skb_to_xdp_buff sets frame_sz from
  // skb_end_pointer), often less than the growth, so the helper says -EINVAL for some frames; the
  // kernel's case would fail there too and upstream lists it in ci_skip_tests[]. It skips only
  // when every refusal is -EINVAL: the program counts each refusal by its errno.
  const auto& bss = *p.skeleton->bss;
  const std::uint32_t invalid = bss.tail_invalid;
  const std::uint32_t unsupported = bss.tail_unsupported;
  const std::uint32_t other = bss.tail_other;
  std::string counts = "-EINVAL " + std::to_string(invalid) + ", -EOPNOTSUPP " +
                       std::to_string(unsupported) + ", other " + std::to_string(other);
  if (other > 0) counts += " (the last " + std::to_string(bss.tail_other_error) + ")";
  counts += " of " + std::to_string(batch) + " frames";
  if (adjust > 0 && mode.attach == AttachMode::native && invalid > 0 && unsupported == 0 &&
      other == 0) {
    GTEST_SKIP() << "not applicable on veth's native XDP: bpf_xdp_adjust_tail(" << adjust
                 << ") refused with -EINVAL only (" << counts
                 << "; the peer's skb lacked the tailroom; docs/conformance.md)";
  }
  ASSERT_EQ(invalid + other, 0U) << "bpf_xdp_adjust_tail(" << adjust << ") refused: " << counts;
  if (unsupported > 0) {
    // The mode is in the test's name: one reason for every mode groups in the skip report.
    GTEST_SKIP() << "bpf_xdp_adjust_tail returned -EOPNOTSUPP (resizing not supported in this "
                    "mode; "
                 << counts << "); the kernel's test skips the case then";
  }
  EXPECT_EQ(result, "");
}

TEST_P(Conformance, XDP_ADJUST_TAIL_SHRINK) {
  AFXDP_REQUIRE_SYSTEM();
  adjust_tail(GetParam(), -4);
}

TEST_P(Conformance, XDP_ADJUST_TAIL_GROW) {
  AFXDP_REQUIRE_SYSTEM();
  adjust_tail(GetParam(), 4);
}

// The kernel's multi-buffer sizes: 6144-byte packets (XSK_UMEM__LARGE_FRAME_SIZE * 2, sent as
// 4096 + 2048) shrunk by a whole 4096-byte buffer, or grown by 2047 (within the last fragment of a
// driver's 4096-byte buffers). Growing a multi-buffer packet needs the driver to declare its
// fragments' size (xdp_rxq_info's frag_size); veth and generic XDP do not, so the helper returns
// -EOPNOTSUPP there and the case skips, as the kernel's does.
constexpr std::uint32_t large_packet = 2 * 3072;

TEST_P(Conformance, XDP_ADJUST_TAIL_SHRINK_MULTI_BUFF) {
  AFXDP_REQUIRE_SYSTEM();
  adjust_tail(GetParam(), -4096, large_packet, true);
}

TEST_P(Conformance, XDP_ADJUST_TAIL_GROW_MULTI_BUFF) {
  AFXDP_REQUIRE_SYSTEM();
  adjust_tail(GetParam(), 2047, large_packet, true);
}

// The same case through the Port layer: the application's program named in PortConfig, and
// the metadata it writes read through Frame::metadata (issue 15).
TEST_P(Conformance, XDP_METADATA_COPY_through_Port) {
  AFXDP_REQUIRE_SYSTEM();
  AFXDP_REQUIRE_FACILITY(afxdp::test::xdp_adjust_meta());
  const auto veth = make_veth(GetParam());
  Skeleton skeleton = load_programs({"populate_metadata"});
  Port port = Port::open(veth.b(), {.queues = {0},
                                    .bind = GetParam().bind,
                                    .attach = GetParam().attach,
                                    .busy_poll = GetParam().busy_poll,
                                    .program = {skeleton->obj, "populate_metadata", "xsks"}});
  lab::PacketSocket peer(veth.a());
  const auto frame =
      lab::test_frame(7, 100, afxdp::mac_address(veth.b()), afxdp::mac_address(veth.a()));
  constexpr std::uint32_t count = 200;
  std::vector<std::uint32_t> seen;  // the program's count in front of each of our frames
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (std::uint32_t sent = 0;
       seen.size() < count && std::chrono::steady_clock::now() < deadline;) {
    if (sent < count && peer.send(frame.data(), frame.size())) ++sent;
    port.queues()[0].receive([&](Frames frames) {
      for (const Frame& f : frames) {
        const auto meta = f.metadata(sizeof(::conformance_meta));
        ASSERT_EQ(meta.size(), sizeof(::conformance_meta));
        EXPECT_EQ(f.headroom(), 256U);  // the metadata is the end of it
        ::conformance_meta m{};
        std::memcpy(&m, meta.data(), sizeof m);
        if (f.size() == frame.size()) seen.push_back(m.count);
      }
    });
  }
  ASSERT_EQ(seen.size(), count);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GT(seen[i], seen[i - 1]);
  EXPECT_EQ(port.queues()[0].stats().refused, 0U);
}

// The kernel's case name is also the uapi bind flag's macro: out of the way for the test's name.
#pragma push_macro("XDP_SHARED_UMEM")
#undef XDP_SHARED_UMEM
// As the kernel's case: two sockets on one UMEM and queue at each end (the second sharing the
// first's fill and completion rings). The tx sockets take turns, a batch each, socket k sending
// to destination MAC ..:2k+1; the program picks rx socket h_dest[5] / 2. Each rx socket gets
// exactly its tx socket's half, in order.
TEST_P(Conformance, XDP_SHARED_UMEM) {
  AFXDP_REQUIRE_SYSTEM();
  const auto veth = make_veth(GetParam());
  ProgramLink p(veth, GetParam(), "steer_by_mac");
  Socket second_tx = sharing_socket(p.link.a, GetParam(), false);
  Socket second_rx = sharing_socket(p.link.b, GetParam(), true);
  ASSERT_EQ(&second_rx.fill(), &p.link.b.fill());
  p.link.b_program->insert(1, second_rx.fd());
  auto stream = uniform_stream(default_packets, min_packet);
  for (std::size_t i = 0; i < stream.size(); ++i) {
    stream[i].socket = static_cast<std::uint8_t>((i / batch) % 2);
    stream[i].dst_last = static_cast<std::uint8_t>(2 * stream[i].socket + 1);
  }
  Sender sender = sender_on(p.link.a, p.link.b, stream, p.link.setup);
  sender.add_socket(second_tx);
  Receiver first = receiver_on(p.link.b, p.link.setup);
  first.lend();  // all 1024 frames, on the fill ring both sockets draw from
  Receiver second(second_rx, 0, p.link.setup.rx_frames);
  expect_valid(first, sender, stream, [&](std::uint32_t i) { return stream[i].socket == 0; });
  expect_valid(second, sender, stream, [&](std::uint32_t i) { return stream[i].socket == 1; });
  EXPECT_EQ(run_traffic(sender, {&first, &second}), "");
  EXPECT_EQ(first.received(), default_packets / 2);
  EXPECT_EQ(second.received(), default_packets / 2);
}
#pragma pop_macro("XDP_SHARED_UMEM")

// from_object refuses what cannot work, naming the object and the map, before attaching.
TEST(XskProgramFromObject, BadInputRefusedAndNothingAttached) {
  AFXDP_REQUIRE_SYSTEM();
  lab::VethPair veth(lab::unique_prefix());
  const unsigned ifindex = interface_index(veth.b());
  // Only drop_half is ever loaded: the refusals come before any load, and a program of the object
  // this kernel refuses (bpf_xdp_adjust_meta's, say) is not what this case tests.
  Skeleton opened = open_programs({"drop_half"});
  const XskProgramConfig config{.interface = veth.b(), .mode = AttachMode::skb};
  const auto refused = [&](const char* program, const char* map) -> std::string {
    try {
      XskProgram::from_object(opened->obj, program, map, config);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  const std::string no_map = refused("drop_half", "nonexistent");
  // BPF_OBJ_NAME_LEN cuts the object name to 15 characters.
  EXPECT_NE(no_map.find("conformance_pro"), std::string::npos) << no_map;
  EXPECT_NE(no_map.find("nonexistent"), std::string::npos) << no_map;
  const std::string wrong_map = refused("drop_half", "not_an_xskmap");
  EXPECT_NE(wrong_map.find("not_an_xskmap"), std::string::npos) << wrong_map;
  EXPECT_NE(wrong_map.find("not an XSKMAP"), std::string::npos) << wrong_map;
  const std::string wrong_type = refused("not_xdp", "xsks");
  EXPECT_NE(wrong_type.find("not of type XDP"), std::string::npos) << wrong_type;
  EXPECT_NE(wrong_type.find("xsks"), std::string::npos) << wrong_type;
  const std::string no_program = refused("nonexistent", "xsks");
  EXPECT_NE(no_program.find("no program"), std::string::npos) << no_program;
  EXPECT_EQ(attached_xdp_program(ifindex), 0U);

  // An opened, unloaded object is loaded and attached; the program outlives the object.
  std::uint32_t id = 0;
  {
    XskProgram program = XskProgram::from_object(opened->obj, "drop_half", "xsks", config);
    id = program.program_id();
    opened.reset();
    EXPECT_NE(id, 0U);
    EXPECT_EQ(attached_xdp_program(ifindex), id);
  }
  EXPECT_EQ(attached_xdp_program(ifindex), 0U);
}

// A case loads the programs it names and no other: one the kernel refuses costs its own cases.
TEST(ConformancePrograms, OnlyTheProgramsNamedAreLoaded) {
  AFXDP_REQUIRE_SYSTEM();
  const Skeleton skeleton = load_programs({"drop_half", "steer_by_mac"});
  EXPECT_GE(bpf_program__fd(skeleton->progs.drop_half), 0);
  EXPECT_GE(bpf_program__fd(skeleton->progs.steer_by_mac), 0);
  EXPECT_LT(bpf_program__fd(skeleton->progs.populate_metadata), 0);
  EXPECT_LT(bpf_program__fd(skeleton->progs.populate_metadata_frags), 0);
  EXPECT_LT(bpf_program__fd(skeleton->progs.adjust_tail), 0);
  EXPECT_GE(bpf_map__fd(skeleton->maps.xsks), 0);
  EXPECT_THROW_WITH(load_programs({"no_such_program"}), std::invalid_argument, "no_such_program");
}

}  // namespace
}  // namespace afxdp::conformance
