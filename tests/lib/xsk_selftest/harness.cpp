#include "harness.hpp"

#include "conformance_meta.h"

#include <afxdp/detail/uapi.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <poll.h>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace afxdp::conformance {
namespace {

void write_sysfs(const std::string& path, const std::string& value) {
  std::ofstream file(path);
  file << value;
  file.flush();
  if (!file) throw std::runtime_error("cannot write " + path);
}

// The word XDP_ADJUST_TAIL_GROW's program writes at the end of a grown frame: its length,
// big-endian.
bool tail_word_is_length(const std::uint8_t* data, std::uint32_t len) {
  if (len < 4) return false;
  const std::uint8_t* w = data + len - 4;
  return ((std::uint32_t{w[0]} << 24) | (std::uint32_t{w[1]} << 16) | (std::uint32_t{w[2]} << 8) |
          w[3]) == len;
}

std::string describe(const xdp_desc& desc) {
  return "addr " + std::to_string(desc.addr) + " len " + std::to_string(desc.len);
}

// A number from a sysctl or sysfs file, or `otherwise` where there is none (or 0).
std::uint32_t read_number(const char* path, std::uint32_t otherwise) {
  std::ifstream file(path);
  std::uint32_t n = 0;
  return file >> n && n != 0 ? n : otherwise;
}

}  // namespace

std::string in_seconds(std::chrono::seconds limit) { return std::to_string(limit.count()) + " s"; }

std::uint32_t max_skb_frags() { return read_number("/proc/sys/net/core/max_skb_frags", 17); }

std::uint32_t umem_tailroom() {
  const std::uint32_t line =
      read_number("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", 64);
  return (48 + max_skb_frags() * 16 + line - 1) / line * line;
}

std::vector<Mode> all_modes() {
  return {{"skb", AttachMode::skb, BindMode::skb, false},
          {"native", AttachMode::native, BindMode::native_copy, false},
          {"skb_busy_poll", AttachMode::skb, BindMode::skb, true},
          {"native_busy_poll", AttachMode::native, BindMode::native_copy, true}};
}

lab::VethPair make_veth(const Mode& mode) {
  // Our own network namespace: these change nothing outside it.
  write_sysfs("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
  write_sysfs("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
  lab::VethPair veth(lab::unique_prefix());
  if (mode.busy_poll) {
    for (const std::string& end : {veth.a(), veth.b()}) {
      write_sysfs("/sys/class/net/" + end + "/napi_defer_hard_irqs", "2");
      write_sysfs("/sys/class/net/" + end + "/gro_flush_timeout", "200000");
    }
  }
  return veth;
}

lab::VethPair jumbo_veth(const Mode& mode) {
  lab::VethPair veth = make_veth(mode);
  for (const std::string& end : {veth.a(), veth.b()}) {
    lab::run({"ip", "link", "set", "dev", end, "mtu", std::to_string(jumbo_mtu)});
  }
  return veth;
}

namespace {
UmemConfig umem_config(const LinkSetup& s, std::uint32_t headroom) {
  return {.frame_count = s.rx_frames + s.tx_frames,
          .frame_size = s.frame_size,
          .headroom = headroom,
          .fill_size = s.fill_size,
          .completion_size = s.completion_size,
          .unaligned_chunks = s.unaligned,
          .hugepages = s.unaligned};
}
SocketConfig socket_config(const std::string& interface, const Mode& mode, const LinkSetup& s,
                           std::uint32_t rx, std::uint32_t tx) {
  return {.interface = interface,
          .queue = 0,
          .mode = mode.bind,
          .need_wakeup = true,
          .multi_buffer = s.multi_buffer,
          .rx_size = rx,
          .tx_size = tx,
          .busy_poll = mode.busy_poll,
          .busy_poll_usecs = 20,
          .busy_poll_budget = batch};
}
}  // namespace

Link::Link(const lab::VethPair& veth, const Mode& m, const LinkSetup& s)
    : setup(s),
      mode(m),
      a_umem(umem_config(s, 0)),
      b_umem(umem_config(s, s.rx_headroom)),
      a(a_umem, socket_config(veth.a(), m, s, s.bidirectional ? s.rx_size : 0, s.tx_size)),
      b(b_umem, socket_config(veth.b(), m, s, s.rx_size, s.bidirectional ? s.tx_size : 0)) {
  if (!s.attach_programs) return;
  // Multi-buffer sockets need the program's xdp.frags variant (the kernel's MTU 9000 cases).
  a_program.emplace(XskProgramConfig{.interface = veth.a(),
                                     .mode = m.attach,
                                     .queues = s.xskmap_entries,
                                     .frags = s.multi_buffer});
  b_program.emplace(XskProgramConfig{.interface = veth.b(),
                                     .mode = m.attach,
                                     .queues = s.xskmap_entries,
                                     .frags = s.multi_buffer});
  a_program->insert(0, a.fd());
  b_program->insert(0, b.fd());
}

Socket sharing_socket(Socket& first, const Mode& mode, bool receives) {
  LinkSetup setup;
  setup.multi_buffer = false;  // taken from the UMEM's first socket (the kernel refuses both)
  return {first.umem(), socket_config(first.config().interface, mode, setup,
                                      receives ? setup.rx_size : 0, receives ? 0 : setup.tx_size)};
}

std::vector<Packet> uniform_stream(std::uint32_t count, std::uint32_t len) {
  return std::vector<Packet>(count, Packet{.len = len});
}

// --- Sender ---------------------------------------------------------------------------------

Sender::Sender(Endpoint& socket, const std::vector<Packet>& stream, std::uint64_t first_frame,
               std::uint32_t frames, const MacAddress& dst_mac, const MacAddress& src_mac)
    : sockets_{&socket},
      stream_(stream),
      dst_(dst_mac),
      src_(src_mac),
      rules_{socket.umem().config().frame_count * std::uint64_t{socket.umem().config().frame_size},
             socket.umem().config().frame_size, socket.umem().config().unaligned_chunks},
      frames_(frames) {
  const std::uint32_t frame_size = socket.umem().config().frame_size;
  for (std::uint32_t i = 0; i < frames; ++i)
    free_.push_back(first_frame + std::uint64_t{i} * frame_size);
}

Sender::Sender(Socket& socket, const std::vector<Packet>& stream, std::uint64_t first_frame,
               std::uint32_t frames, const MacAddress& dst_mac, const MacAddress& src_mac)
    : Sender(*socket_endpoint(socket).release(), stream, first_frame, frames, dst_mac, src_mac) {
  owned_.emplace_back(sockets_.front());
}

void Sender::add_socket(Socket& socket) {
  owned_.push_back(socket_endpoint(socket));
  add_socket(*owned_.back());
}

void Sender::add_socket(Endpoint& socket) {
  if (&socket.completion() != &sockets_.front()->completion()) {
    throw std::invalid_argument("Sender::add_socket: " + socket.name() +
                                " does not share the first socket's completion ring");
  }
  sockets_.push_back(&socket);
}

std::size_t Sender::consumed() {
  std::size_t on_rings = 0;
  for (Endpoint* s : sockets_) on_rings += s->tx().outstanding();
  // Packets whose every descriptor the kernel has taken.
  const std::size_t taken = submitted_ - on_rings;
  return static_cast<std::size_t>(
      std::upper_bound(submitted_by_packet_.begin(), submitted_by_packet_.end(), taken) -
      submitted_by_packet_.begin());
}

bool Sender::valid(std::size_t i) const {
  const Packet& p = stream_[i];
  // The verdict depends on the address only through its offset in the frame, so a stand-in
  // frame (the first free one, or frame 1 when the offset is negative) gives the same answer.
  const std::uint64_t frame = sockets_.front()->umem().config().frame_size;
  // A chain's fragments start at frames and are at most a frame long (fragments()).
  if (fragments(i) > 1) return p.offset == 0;
  const std::uint64_t addr =
      p.addr ? *p.addr : static_cast<std::uint64_t>(static_cast<std::int64_t>(frame) + p.offset);
  return valid_tx_descriptor(xdp_desc{addr, p.len, p.options}, rules_);
}

std::uint32_t Sender::fragments(std::size_t i) const {
  const Packet& p = stream_[i];
  const std::uint32_t frame = sockets_.front()->umem().config().frame_size;
  if (p.addr || p.len <= frame || p.len > max_jumbo) return 1;
  return (p.len + frame - 1) / frame;
}

std::uint32_t Sender::send(std::uint32_t max) {
  if (all_queued()) return 0;
  // One call fills one socket's tx ring: the next packets that this socket sends.
  const std::uint8_t from = stream_[next_].socket;
  if (from >= sockets_.size()) {
    fail("packet " + std::to_string(next_) + " names socket " + std::to_string(from));
    return 0;
  }
  // At a change of socket, as the kernel's send_pkts (wait_for_tx_completion after each batch):
  // the previous socket's packets all completed first, so the two sockets' packets leave in
  // stream order (each kick sends at most tx_budget of one socket's ring).
  if (next_ != 0 && stream_[next_ - 1].socket != from && awaiting_valid_ != 0) return 0;
  // Whole packets only (a chain is never split), as many descriptors as `max` and the free frames
  // allow; then reserve that many.
  std::uint32_t packets = 0;
  std::uint32_t descriptors = 0;
  std::uint32_t frames_needed = 0;
  while (next_ + packets < stream_.size() && stream_[next_ + packets].socket == from) {
    const std::uint32_t f = fragments(next_ + packets);
    const std::uint32_t need = stream_[next_ + packets].addr ? 0 : f;
    if ((descriptors != 0 && descriptors + f > max) || frames_needed + need > free_.size()) break;
    descriptors += f;
    frames_needed += need;
    ++packets;
  }
  TxRing& tx = sockets_[from]->tx();
  if (packets == 0 || tx.reserve(descriptors) != descriptors) return 0;
  std::uint32_t slot = 0;
  for (std::uint32_t i = 0; i < packets; ++i) place(next_ + i, *sockets_[from], slot);
  tx.submit(descriptors);
  next_ += packets;
  return descriptors;
}

void Sender::place(std::size_t index, Endpoint& socket, std::uint32_t& slot) {
  const Packet& p = stream_[index];
  const UmemView& umem = socket.umem();
  const std::uint32_t frame_size = umem.config().frame_size;
  const bool ok = valid(index);
  std::vector<std::uint8_t> bytes;
  if (ok) {
    MacAddress dst = dst_;
    if (p.dst_last != 0xff) dst[5] = p.dst_last;
    bytes = lab::test_frame(static_cast<std::uint32_t>(index), p.len, dst, src_);
    ++sent_valid_;
  } else {
    ++sent_invalid_;
  }
  const std::uint32_t f = fragments(index);
  for (std::uint32_t k = 0; k < f; ++k) {
    std::uint64_t addr = 0;
    std::uint64_t frame = 0;
    if (p.addr) {
      addr = *p.addr;
    } else {
      frame = free_.back();
      free_.pop_back();
      addr = static_cast<std::uint64_t>(static_cast<std::int64_t>(frame) + p.offset);
    }
    // A chain's fragments are whole frames but the last (the kernel's __send_pkts).
    const std::uint32_t len = f == 1 ? p.len : std::min(frame_size, p.len - k * frame_size);
    if (ok) {
      std::memcpy(umem.data(umem.resolve(addr)), bytes.data() + std::size_t{k} * frame_size, len);
      ++awaiting_valid_;
    }
    outstanding_.push_back({addr, frame, ok, !p.addr});
    const std::uint32_t options = k + 1 < f ? p.options | uapi::xdp_pkt_contd : p.options;
    socket.tx().at(slot++) = xdp_desc{addr, len, options};
  }
  submitted_ += f;
  submitted_by_packet_.push_back(submitted_);
}

void Sender::kick() {
  for (Endpoint* s : sockets_) {
    if (!s->tx().needs_wakeup()) continue;
    const WakeStatus status = s->wake_tx();
    if (!status.transient()) fail("sendto on " + s->name() + ": " + std::strerror(status.error));
  }
}

std::uint32_t Sender::complete() {
  CompletionRing& cq = sockets_.front()->completion();
  const std::uint32_t n = cq.peek(batch);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t addr = cq.at(i);
    // The oldest outstanding descriptor with this address (from the pool, addresses repeat only
    // after their frame came back; the kernel's invalid-descriptor table puts several at address
    // 0, where matching any of them gives the same counts).
    auto it = std::find_if(outstanding_.begin(), outstanding_.end(),
                           [&](const Outstanding& o) { return o.addr == addr; });
    if (it == outstanding_.end() && (addr & 1) == 0) {
      // 6.18's copy mode keeps a lone descriptor's address in the skb with its low bit as a
      // tag and completes an odd address one lower (docs/conformance.md).
      it = std::find_if(outstanding_.begin(), outstanding_.end(),
                        [&](const Outstanding& o) { return o.addr == (addr | 1); });
      if (it != outstanding_.end()) ++odd_completed_even_;
    }
    if (it == outstanding_.end()) {
      fail("completion of " + std::to_string(addr) + ", which is not outstanding");
      continue;
    }
    if (it->valid) {
      --awaiting_valid_;
    } else {
      ++completed_invalid_;
    }
    if (it->own_frame) free_.push_back(it->frame);
    outstanding_.erase(it);
  }
  cq.release(n);
  return n;
}

void Sender::finish(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    complete();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  complete();
  for (Endpoint* s : sockets_) {
    if (s->tx().outstanding() != 0)
      fail("finish with descriptors left on " + s->name() + "'s tx ring");
  }
  for (const Outstanding& o : outstanding_) {
    if (o.valid) {
      fail("valid descriptor " + std::to_string(o.addr) + " never completed");
    } else {
      if (o.own_frame) free_.push_back(o.frame);
      ++reclaimed_;
    }
  }
  outstanding_.clear();
}

// --- Receiver -------------------------------------------------------------------------------

Receiver::Receiver(Endpoint& socket, std::uint64_t first_frame, std::uint32_t frames)
    : socket_(&socket), first_(first_frame), frames_(frames) {}

Receiver::Receiver(Socket& socket, std::uint64_t first_frame, std::uint32_t frames)
    : owned_(socket_endpoint(socket)),
      socket_(owned_.get()),
      first_(first_frame),
      frames_(frames) {}

void Receiver::lend(std::int64_t odd_offset) {
  std::vector<std::int64_t> offsets(frames_);
  for (std::size_t i = 1; i < offsets.size(); i += 2) offsets[i] = odd_offset;
  lend_frames(offsets);
}

void Receiver::lend_per_packet(const std::vector<std::int64_t>& offsets) {
  const UmemConfig& config = socket_->umem().config();
  const auto frame_size = static_cast<std::int64_t>(config.frame_size);
  std::vector<std::int64_t> by_frame;
  for (std::size_t k = 0; k < offsets.size() && k < expected_.size(); ++k) {
    const std::int64_t offset = offsets[k] >= 0 ? offsets[k] % frame_size : offsets[k];
    by_frame.insert(by_frame.end(), buffers_until_[k + 1] - buffers_until_[k], offset);
  }
  by_frame.resize(std::max<std::size_t>(by_frame.size(), frames_), 0);
  check_fill_order_ = true;
  lend_frames(by_frame);
}

std::vector<std::uint64_t> Receiver::first_lent(std::size_t n) const {
  return {lent_first_.begin(),
          lent_first_.begin() + static_cast<std::ptrdiff_t>(std::min(n, lent_first_.size()))};
}

// Frame i at its start + offsets[i], as many frames as the fill ring holds.
void Receiver::lend_frames(const std::vector<std::int64_t>& offsets) {
  const std::uint32_t frame_size = socket_->umem().config().frame_size;
  const std::uint32_t n = std::min(frames_, socket_->fill().size());
  lent_first_.clear();
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::int64_t addr = static_cast<std::int64_t>(first_ + std::uint64_t{i} * frame_size) +
                              (i < offsets.size() ? offsets[i] : 0);
    if (addr < 0) {
      fail("frame " + std::to_string(i) + " lent before the UMEM's start");
      return;
    }
    lent_first_.push_back(static_cast<std::uint64_t>(addr));
  }
  if (put_on_fill(n, [&](std::uint32_t i) { return lent_first_[i]; })) lent_ = n;
}

bool Receiver::put_on_fill(std::uint32_t n,
                           const std::function<std::uint64_t(std::uint32_t)>& addr) {
  FillRing& fill = socket_->fill();
  if (fill.reserve(n) != n) {
    fail("fill ring has no room for " + std::to_string(n) + " frames");
    return false;
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    fill.at(i) = addr(i);
    if (check_fill_order_) fill_order_.push_back(addr(i));
  }
  fill.submit(n);
  return true;
}

void Receiver::expect(std::vector<std::uint32_t> sequences, std::vector<std::uint32_t> lengths) {
  expected_ = std::move(sequences);
  lengths_ = std::move(lengths);
  next_ = 0;
  // The buffers each packet takes on rx: what a buffer holds after the headroom, per fragment.
  const UmemConfig& config = socket_->umem().config();
  const std::uint32_t room = config.frame_size - xdp_packet_headroom - config.headroom;
  buffers_until_.assign(1, 0);
  for (const std::uint32_t len : lengths_) {
    buffers_until_.push_back(buffers_until_.back() + std::max(1U, (len + room - 1) / room));
  }
}

// One rx descriptor: its bounds and offset (every fragment, as the kernel's is_frag_valid and
// is_offset_correct), its bytes added to the packet so far; the packet checked at its last.
void Receiver::take(const xdp_desc& desc) {
  const UmemView& umem = socket_->umem();
  const UmemConfig& config = umem.config();
  const std::uint64_t expected_offset = (xdp_packet_headroom + config.headroom) % config.frame_size;
  const std::uint64_t chunk = umem.chunk_of(desc.addr);
  const std::uint64_t offset = umem.resolve(desc.addr) - chunk;
  if (!umem.contains(umem.resolve(desc.addr), desc.len) || chunk < first_ ||
      chunk >= first_ + std::uint64_t{frames_} * config.frame_size) {
    fail("rx descriptor outside the frames lent: " + describe(desc));
  } else if (next_ >= expected_.size()) {
    fail("received too many frames: one more with " + describe(desc));
  } else if (offset != expected_offset) {
    fail("rx offset " + std::to_string(offset) + ", expected " + std::to_string(expected_offset) +
         " (XDP_PACKET_HEADROOM + UMEM headroom)");
  } else if (!config.unaligned_chunks && offset + desc.len > config.frame_size) {
    fail("fragment crosses its frame: " + describe(desc));
  } else if (check_fill_order_ &&
             (fill_order_.empty() || umem.chunk_of(fill_order_.front()) != chunk)) {
    fail("rx descriptor " + describe(desc) + " is not in the buffer lent next, " +
         (fill_order_.empty() ? std::string("none") : std::to_string(fill_order_.front())));
  } else {
    if (check_fill_order_) fill_order_.pop_front();
    const auto* data = reinterpret_cast<const std::uint8_t*>(umem.data(umem.resolve(desc.addr)));
    if (packet_.empty() && check_metadata_) {
      conformance_meta meta{};
      std::memcpy(&meta, data - sizeof meta, sizeof meta);
      if (meta.count != next_) {
        fail("metadata count " + std::to_string(meta.count) + " in front of frame " +
             std::to_string(next_));
      }
    }
    packet_.insert(packet_.end(), data, data + desc.len);
    ++fragments_;
    if ((desc.options & uapi::xdp_pkt_contd) == 0) check_packet();
  }
}

void Receiver::check_packet() {
  const auto len = static_cast<std::uint32_t>(packet_.size());
  std::uint32_t sequence = 0;
  if (len < added_tail_ || !lab::check_test_frame(packet_.data(), len - added_tail_, sequence)) {
    fail("frame " + std::to_string(next_) + " (expected sequence " +
         std::to_string(expected_[next_]) + ") has wrong content, length " + std::to_string(len) +
         " in " + std::to_string(fragments_) + " fragments");
  } else if (sequence != expected_[next_] && !skip_lost(sequence)) {
    fail("sequence " + std::to_string(sequence) + " where " + std::to_string(expected_[next_]) +
         " was next (out of order or lost)");
  } else if (len != lengths_[next_]) {
    fail("sequence " + std::to_string(sequence) + " has length " + std::to_string(len) + ", sent " +
         std::to_string(lengths_[next_]));
  } else if (added_tail_ != 0 && !tail_word_is_length(packet_.data(), len)) {
    fail("sequence " + std::to_string(sequence) +
         ": its last 4 bytes are not its length as the program wrote it");
  }
  fragments_by_packet_.push_back(fragments_);
  packet_.clear();
  fragments_ = 0;
  ++next_;
}

bool Receiver::skip_lost(std::uint32_t sequence) {
  const auto from = expected_.begin() + static_cast<std::ptrdiff_t>(next_);
  const auto it = std::lower_bound(from, expected_.end(), sequence);
  const auto skipped = static_cast<std::uint32_t>(it - from);
  if (it == expected_.end() || *it != sequence || lost_ + skipped > may_lose_) return false;
  lost_ += skipped;
  next_ += skipped;
  return true;
}

std::uint32_t Receiver::receive(std::uint32_t max) {
  const WakeStatus status = socket_->wake_rx();
  if (!status.transient())
    fail("recvfrom on " + socket_->name() + ": " + std::strerror(status.error));
  RxRing& rx = socket_->rx();
  // Without release_rx the entries peeked before stay in the window, ahead of the new ones.
  const std::uint32_t kept = rx.peeked().size();
  const std::uint32_t n = rx.peek(max);
  for (std::uint32_t i = kept; i < kept + n; ++i) {
    take(rx.at(i));
    ++descriptors_;
    if (refill_) waiting_.push_back(socket_->umem().chunk_of(rx.at(i).addr));
  }
  // Read before released: the frames are ours until they go back on fill.
  if (release_rx_) rx.release(kept + n);
  if (!waiting_.empty()) {
    std::uint32_t m = socket_->fill().free_slots(static_cast<std::uint32_t>(waiting_.size()));
    m = std::min<std::uint32_t>(m, static_cast<std::uint32_t>(waiting_.size()));
    const std::size_t from = waiting_.size() - m;
    if (m > 0 && put_on_fill(m, [&](std::uint32_t i) { return waiting_[from + i]; })) {
      waiting_.resize(from);
    }
  }
  return n;
}

void expect_valid(Receiver& receiver, const Sender& sender, const std::vector<Packet>& stream,
                  const std::function<bool(std::uint32_t)>& keep) {
  std::vector<std::uint32_t> sequences, lengths;
  for (std::uint32_t i = 0; i < stream.size(); ++i) {
    if (!sender.valid(i) || (keep && !keep(i))) continue;
    sequences.push_back(i);
    lengths.push_back(stream[i].len);
  }
  receiver.expect(std::move(sequences), std::move(lengths));
}

// --- Traffic --------------------------------------------------------------------------------

std::uint32_t Receiver::expected_before(std::size_t sequence) const {
  return static_cast<std::uint32_t>(std::lower_bound(expected_.begin(), expected_.end(), sequence) -
                                    expected_.begin());
}

std::uint32_t Receiver::in_flight(std::size_t sent, std::size_t received) const {
  const std::uint32_t sent_buffers = buffers_until_[expected_before(sent)];
  const std::uint32_t received_buffers = buffers_until_[received];
  return sent_buffers > received_buffers ? sent_buffers - received_buffers : 0;
}

Drive default_drive() {
  const char* drive = std::getenv("AFXDP_CONFORMANCE_DRIVE");
  if (drive == nullptr || *drive == '\0' || std::string_view(drive) == "two_threads") {
    return Drive::two_threads;
  }
  if (std::string_view(drive) == "one_thread") return Drive::one_thread;
  throw std::invalid_argument(std::string("AFXDP_CONFORMANCE_DRIVE=") + drive +
                              ": must be two_threads or one_thread");
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr int poll_timeout_ms = 1000;  // POLL_TMOUT

std::string revents(int r) {
  return r < 0 ? std::string("error ") + std::strerror(-r) : "revents " + std::to_string(r);
}

// The kernel's time limits (THREAD_TMOUT's shape, stream_timeout long), each side's own: the rx
// side has it for its whole stream from its start (receive_pkts); the tx side for its completions
// once its last packet is queued (wait_for_tx_completion). While it queues, the tx side waits on
// the receivers (the pacing), so their limit is its own; where nothing paces it (no receiver, or
// all have what they expect) it has as long from then to queue the rest (the kernel has no limit
// there: a safety net, so a ring that never drains fails instead of hanging).
class TxClock {
 public:
  // "" or why the tx side is out of time.
  std::string check(bool queued, bool unpaced, Clock::time_point now) {
    if (queued && !queued_at_) queued_at_ = now;
    if (unpaced && !unpaced_at_) unpaced_at_ = now;
    if (queued_at_ && now - *queued_at_ > stream_timeout) {
      return "transmission loop timed out: completions not all in " + in_seconds(stream_timeout) +
             " after the last packet was queued";
    }
    if (!queued_at_ && unpaced_at_ && now - *unpaced_at_ > stream_timeout) {
      return "transmission loop timed out: the stream not queued " + in_seconds(stream_timeout) +
             " after nothing paced it";
    }
    return "";
  }

 private:
  std::optional<Clock::time_point> queued_at_, unpaced_at_;
};

// One run_traffic: the steps of each side and the rules they follow, driven from one thread or
// two. A step reads the other side's progress only through its arguments (`in_flight`, `passed`,
// `rx_done`: what the other thread last published when there are two).
class Traffic {
 public:
  Traffic(Sender& sender, std::vector<Receiver*> receivers, const TrafficOptions& options)
      : sender_(sender), receivers_(std::move(receivers)), options_(options) {
    for (Receiver* r : receivers_) lent_ += r->lent();
  }
  std::string one_thread();
  std::string two_threads();

 private:
  [[nodiscard]] bool queued() const { return sender_.all_queued(); }
  [[nodiscard]] bool rx_done() const {
    return std::all_of(receivers_.begin(), receivers_.end(), [](Receiver* r) { return r->done(); });
  }
  [[nodiscard]] std::string first_error() const {
    if (!sender_.error().empty()) return sender_.error();
    for (Receiver* r : receivers_) {
      if (!r->error().empty()) return r->error();
    }
    return "";
  }
  [[nodiscard]] std::string rx_timed_out() const {
    std::string state =
        "receive loop timed out: the stream not received in " + in_seconds(stream_timeout) + ":";
    for (Receiver* r : receivers_) {
      state += " received " + std::to_string(r->received()) + " of " +
               std::to_string(r->expected_count()) + ";";
    }
    return state + " queued " + std::to_string(sender_.next()) + ", awaiting completion " +
           std::to_string(sender_.awaiting());
  }
  [[nodiscard]] std::string with_state(const std::string& what) const {
    return what + ": queued " + std::to_string(sender_.next()) + ", awaiting completion " +
           std::to_string(sender_.awaiting());
  }
  bool tx_step(std::uint32_t in_flight, std::size_t passed, bool rx_done, std::string& failure);
  bool rx_step(Receiver& r, std::uint32_t in_flight, std::string& failure);
  bool poll_tx(const char* when, std::string& failure);

  Sender& sender_;
  std::vector<Receiver*> receivers_;
  const TrafficOptions& options_;
  std::uint32_t lent_ = 0;
  bool poll_pending_ = false;  // the tx side's: a batch submitted, its poll(POLLOUT) not yet made
};

// POLL_TX's poll: the kernel's __send_pkts fails on a timeout or an error; ours also wants
// POLLOUT in the answer.
bool Traffic::poll_tx(const char* when, std::string& failure) {
  const int r = sender_.socket().poll(POLLOUT, poll_timeout_ms);
  if (r > 0 && (r & POLLOUT) != 0) return true;
  failure = std::string("poll(POLLOUT) ") + when + " returned " + revents(r);
  return false;
}

// The sender's step: send a batch if the pacing allows, kick, take completions. `in_flight`: rx
// buffers the packets queued so far take, less those received; `passed`: the stream's packets up
// to the last one any receiver has; `rx_done`: every receiver has what it expects (nothing paces
// the rest). True when something moved; a failure goes in `failure`.
bool Traffic::tx_step(std::uint32_t in_flight, std::size_t passed, bool rx_done,
                      std::string& failure) {
  // Frames the kernel took from the tx ring that have not reached the receiving end's XDP
  // program yet wait in veth's ring, which drops what does not fit (see veth_ring; and
  // veth_ring_unfreed: slots its NAPI has read may not be free yet). veth keeps them in order, so
  // every frame up to the last one received has left it.
  const auto veth_has_room = [&] {
    return receivers_.empty() || rx_done ||
           sender_.consumed() - passed + tx_budget + veth_ring_unfreed <= veth_ring;
  };
  bool progress = false;
  bool polled = false;
  if (options_.poll_tx && !veth_has_room()) {
    // Any poll now could send into a full veth ring: wait (paced) for the receiver. Every poll
    // the kernel's test makes is made, only later.
    return sender_.complete() != 0;
  }
  if (poll_pending_) {
    if (!poll_tx("after submitting", failure)) return false;
    poll_pending_ = false;
    polled = progress = true;
  }
  // Pace like the kernel's test: never more in flight than the receivers can hold.
  if (!queued() && (receivers_.empty() || in_flight + options_.tx_batch <= lent_)) {
    if (options_.poll_tx &&
        sender_.socket().tx().free_slots(options_.tx_batch) < options_.tx_batch) {
      // As the kernel's: no room for a batch, so poll until there is.
      if (!poll_tx("on a full tx ring", failure)) return false;
      polled = true;
    }
    const std::uint32_t n = sender_.send(options_.tx_batch);
    progress |= n != 0;
    if (n != 0 && options_.poll_tx) {
      // As the kernel's: poll after each batch submitted, and a timeout fails; made now when
      // veth's ring has room for what the poll may send, else at the next step that finds room.
      if (!veth_has_room()) {
        poll_pending_ = true;
      } else {
        if (!poll_tx("after submitting", failure)) return false;
        polled = true;
      }
    }
  }
  // Paced or done, the kernel's test kicks with sendto even in poll mode; so do we, unless
  // veth's ring might not hold what one more kick could send.
  if (!polled && !poll_pending_ && veth_has_room()) sender_.kick();
  progress |= sender_.complete() != 0;
  return progress;
}

// One receiver's step: poll first if asked, then receive a batch. True when something arrived.
// POLL_RX as the kernel's __receive_pkts: an error fails; on a timeout or without POLLIN it does
// not read the ring. Ours also fails a timeout with `in_flight` buffers' worth of packets on
// their way, any revents but POLLIN, and a POLLIN with nothing on the rx ring.
bool Traffic::rx_step(Receiver& r, std::uint32_t in_flight, std::string& failure) {
  if (options_.poll_rx) {
    const int p = r.socket().poll(POLLIN, poll_timeout_ms);
    if (p == 0) {
      if (in_flight != 0) failure = "poll(POLLIN) timed out with frames in flight";
      return false;
    }
    if (p < 0 || p != POLLIN) {
      failure = "poll(POLLIN) returned " + revents(p);
      return false;
    }
    const std::uint32_t n = r.receive(options_.rx_batch);
    if (n == 0) failure = "poll(POLLIN) said POLLIN, but the rx ring was empty";
    return n != 0;
  }
  return r.receive(options_.rx_batch) != 0;
}

std::string Traffic::one_thread() {
  const auto rx_start = Clock::now();
  TxClock tx_clock;
  while (!(queued() && sender_.all_completed() && rx_done() && !poll_pending_)) {
    if (std::string e = first_error(); !e.empty()) return e;
    const auto now = Clock::now();
    if (!rx_done() && now - rx_start > stream_timeout) return rx_timed_out();
    if (std::string e = tx_clock.check(queued(), receivers_.empty() || rx_done(), now);
        !e.empty()) {
      return with_state(e);
    }
    std::uint32_t in_flight = 0;
    std::size_t passed = 0;
    for (Receiver* r : receivers_) {
      in_flight += r->in_flight(sender_.next());
      passed = std::max(passed, r->passed());
    }
    std::string failure;
    tx_step(in_flight, passed, rx_done(), failure);
    for (Receiver* r : receivers_) {
      if (!failure.empty()) return failure;
      if (r->done()) continue;
      rx_step(*r, in_flight, failure);
    }
    if (!failure.empty()) return failure;
  }
  return first_error();
}

// The rx side (every receiver) on a thread of its own, the tx side on another, as the kernel's
// worker_pkt_rx and worker_pkt_tx, each with the kernel's time limits (TxClock). What the two
// share, and nothing else:
//   received[i]    receiver i's packets received, published by the rx thread after each batch;
//                  the tx thread paces by it (in_flight, passed, whether all are done: from the
//                  receiver's expected stream, which expect() set before and nothing changes
//                  now). Stale is safe: it only ever grows, so the tx side sees more in flight,
//                  never less.
//   consumed       the packets the kernel has taken from the tx rings, published by the tx thread
//                  after each step; the rx side's poll(POLLIN) may time out only while none of
//                  them is on its way. Release/acquire: what the count says was taken is on the
//                  rx ring by then, on the Loopback (its kick delivers) and on veth but for its
//                  own queue and NAPI, which poll's second of waiting covers. The rx side may be
//                  ahead of the count (the Loopback delivers inside the kick): none in flight.
//   stop           a failure on either side: both sides return.
// The Sender, its sockets and rings belong to the tx thread; the Receivers, their rings and the
// fill ring they may share (XDP_SHARED_UMEM) to the rx thread. Each side's own failure string is
// read after both are joined.
std::string Traffic::two_threads() {
  std::vector<std::atomic<std::size_t>> received(receivers_.size());
  std::atomic<std::size_t> consumed{0};
  std::atomic<bool> stop{false};
  std::string tx_failure, rx_failure;

  const auto tx_side = [&] {
    try {
      TxClock clock;
      while (!stop.load(std::memory_order_acquire)) {
        std::uint32_t in_flight = 0;
        std::size_t passed = 0;
        bool all_received = true;
        for (std::size_t i = 0; i < receivers_.size(); ++i) {
          const std::size_t n = received[i].load(std::memory_order_acquire);
          in_flight += receivers_[i]->in_flight(sender_.next(), n);
          passed = std::max(passed, receivers_[i]->passed(n));
          all_received = all_received && n == receivers_[i]->expected_count();
        }
        const bool progress = tx_step(in_flight, passed, all_received, tx_failure);
        const std::size_t taken = sender_.consumed();
        consumed.store(taken, std::memory_order_release);
        if (!tx_failure.empty() || !sender_.error().empty()) break;
        if (queued() && sender_.all_completed() && taken == sender_.next() && !poll_pending_) {
          return;
        }
        tx_failure = clock.check(queued(), receivers_.empty() || all_received, Clock::now());
        if (!tx_failure.empty()) {
          tx_failure = with_state(tx_failure);
          break;
        }
        if (!progress) std::this_thread::yield();
      }
    } catch (const std::exception& e) {
      tx_failure = std::string("tx thread: ") + e.what();
    }
    stop.store(true, std::memory_order_release);
  };

  const auto rx_side = [&] {
    try {
      const auto start = Clock::now();
      while (!stop.load(std::memory_order_acquire)) {
        const std::size_t taken = consumed.load(std::memory_order_acquire);
        bool progress = false;
        bool failed = false;
        for (std::size_t i = 0; i < receivers_.size() && !failed; ++i) {
          Receiver& r = *receivers_[i];
          if (r.done()) continue;
          progress |= rx_step(r, r.in_flight(taken), rx_failure);
          received[i].store(r.received(), std::memory_order_release);
          failed = !rx_failure.empty() || !r.error().empty();
        }
        if (failed) break;
        if (rx_done()) return;
        if (Clock::now() - start > stream_timeout) {
          rx_failure = rx_timed_out();
          break;
        }
        if (!progress) std::this_thread::yield();
      }
    } catch (const std::exception& e) {
      rx_failure = std::string("rx thread: ") + e.what();
    }
    stop.store(true, std::memory_order_release);
  };

  {
    // Joined at the end of this scope, also when starting the second throws (stop set first).
    std::vector<std::jthread> threads;
    try {
      if (!receivers_.empty()) threads.emplace_back(rx_side);
      threads.emplace_back(tx_side);
    } catch (...) {
      stop.store(true);
      throw;
    }
  }
  if (!tx_failure.empty()) return tx_failure;
  if (!rx_failure.empty()) return rx_failure;
  return first_error();
}

}  // namespace

std::string run_traffic(Sender& sender, std::vector<Receiver*> receivers,
                        const TrafficOptions& options) {
  Traffic traffic(sender, std::move(receivers), options);
  return options.drive.value_or(default_drive()) == Drive::one_thread ? traffic.one_thread()
                                                                      : traffic.two_threads();
}

Sender sender_on(Endpoint& from, Endpoint& to, const std::vector<Packet>& stream,
                 const LinkSetup& setup) {
  const std::uint64_t first = std::uint64_t{setup.rx_frames} * setup.frame_size;
  return {from, stream, first, setup.tx_frames, to.mac(), from.mac()};
}

Sender sender_on(Socket& from, Socket& to, const std::vector<Packet>& stream,
                 const LinkSetup& setup) {
  const std::uint64_t first = std::uint64_t{setup.rx_frames} * setup.frame_size;
  return {from,
          stream,
          first,
          setup.tx_frames,
          afxdp::mac_address(to.config().interface),
          afxdp::mac_address(from.config().interface)};
}

Receiver receiver_on(Endpoint& socket, const LinkSetup& setup) {
  return {socket, 0, setup.rx_frames};
}

Receiver receiver_on(Socket& socket, const LinkSetup& setup) {
  return {socket, 0, setup.rx_frames};
}

std::string send_receive(Endpoint& a, Endpoint& b, const LinkSetup& setup, std::uint32_t packets,
                         std::uint32_t len, const TrafficOptions& options) {
  const auto stream = uniform_stream(packets, len);
  Sender sender = sender_on(a, b, stream, setup);
  Receiver receiver = receiver_on(b, setup);
  receiver.lend();
  expect_valid(receiver, sender, stream);
  return run_traffic(sender, {&receiver}, options);
}

std::string send_receive(Link& link, std::uint32_t packets, std::uint32_t len,
                         const TrafficOptions& options) {
  const auto a = socket_endpoint(link.a);
  const auto b = socket_endpoint(link.b);
  return send_receive(*a, *b, link.setup, packets, len, options);
}

bool settle(Endpoint& socket, const std::function<bool()>& done, int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    socket.wake_rx();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

bool settle(Socket& socket, const std::function<bool()>& done, int ms) {
  return settle(*socket_endpoint(socket), done, ms);
}

}  // namespace afxdp::conformance
