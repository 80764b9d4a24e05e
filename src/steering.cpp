#include <afxdp/error.hpp>
#include <afxdp/steering.hpp>
#include <afxdp/xsk_program.hpp>

#include "steer_tables.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <atomic>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <map>
#include <stdexcept>
#include <system_error>

namespace afxdp {
namespace {

using Tuple = afxdp_steer_tuple;
using TupleBytes = std::array<std::uint8_t, sizeof(Tuple)>;
using KeyBytes = std::array<std::uint8_t, sizeof(afxdp_steer_key)>;
// A narrow key is the first bytes of a wide one (the tag, then the tuple's head).
static_assert(offsetof(afxdp_steer_key, tuple) == offsetof(afxdp_steer_narrow_key, head));
static_assert(offsetof(afxdp_steer_tuple, src) == AFXDP_STEER_NARROW_SIZE);

// The most (mask, value) entries one rule may expand into: port ranges become prefix-aligned
// blocks, either-direction ports and nets two alternatives each.
constexpr std::size_t max_entries_per_rule = 1024;

struct Entry {
  Tuple mask{};
  Tuple value{};
};

TupleBytes bytes_of(const Tuple& t) {
  TupleBytes b{};
  std::memcpy(b.data(), &t, sizeof t);
  return b;
}

void set_prefix(std::uint8_t* mask, std::uint8_t* value, const IpPrefix& p) {
  for (unsigned bit = 0; bit < p.length; ++bit) {
    mask[bit / 8] = static_cast<std::uint8_t>(mask[bit / 8] | (0x80U >> (bit % 8)));
  }
  for (unsigned i = 0; i < 16; ++i) value[i] = p.address.at(i) & mask[i];
}

// [first, last] as prefix-aligned blocks: (value, mask) pairs.
std::vector<std::pair<std::uint16_t, std::uint16_t>> port_blocks(PortRange r) {
  std::vector<std::pair<std::uint16_t, std::uint16_t>> blocks;
  std::uint32_t at = r.first;
  while (at <= r.last) {
    std::uint32_t size = at == 0 ? 0x10000 : (at & (~at + 1));
    while (at + size - 1 > r.last) size /= 2;
    blocks.emplace_back(static_cast<std::uint16_t>(at), static_cast<std::uint16_t>(~(size - 1)));
    at += size;
  }
  return blocks;
}

// The entries of one alternative with directions fixed, before port blocks.
Entry base_entry(const MatchTerm& t) {
  Entry e;
  if (t == MatchTerm{}) return e;  // every frame, tagged or not: an all-zero mask
  e.mask.flags = AFXDP_STEER_TAG1 | AFXDP_STEER_TAG2;
  if (t.vlan_tags >= 1) e.value.flags |= AFXDP_STEER_TAG1;
  if (t.vlan_tags >= 2) e.value.flags |= AFXDP_STEER_TAG2;
  if (t.vlan_ids[0]) {
    e.mask.vlan_outer = htons(0x0fff);
    e.value.vlan_outer = htons(*t.vlan_ids[0]);
  }
  if (t.vlan_ids[1]) {
    e.mask.vlan_inner = htons(0x0fff);
    e.value.vlan_inner = htons(*t.vlan_ids[1]);
  }
  if (t.ethertype) {
    e.mask.ethertype = 0xffff;
    e.value.ethertype = htons(*t.ethertype);
  }
  if (t.protocol) {
    e.mask.proto = 0xff;
    e.value.proto = *t.protocol;
  }
  if (t.src_net) set_prefix(e.mask.src, e.value.src, *t.src_net);
  if (t.dst_net) set_prefix(e.mask.dst, e.value.dst, *t.dst_net);
  return e;
}

void add_ports(std::vector<Entry>& out, Entry e, const std::optional<PortRange>& src,
               const std::optional<PortRange>& dst) {
  if (src || dst) {
    e.mask.flags |= AFXDP_STEER_PORTS;
    e.value.flags |= AFXDP_STEER_PORTS;
  }
  const auto any = std::vector<std::pair<std::uint16_t, std::uint16_t>>{{0, 0}};
  for (const auto& [sv, sm] : src ? port_blocks(*src) : any) {
    for (const auto& [dv, dm] : dst ? port_blocks(*dst) : any) {
      Entry x = e;
      x.mask.sport = htons(sm);
      x.value.sport = htons(sv & sm);
      x.mask.dport = htons(dm);
      x.value.dport = htons(dv & dm);
      out.push_back(x);
      if (out.size() > max_entries_per_rule) return;
    }
  }
}

std::vector<Entry> compile(const Match& match) {
  std::vector<Entry> out;
  for (MatchTerm t : match.alternatives()) {
    // Either direction: the alternative once with each direction.
    std::vector<MatchTerm> directed;
    for (int n = 0; n < (t.net ? 2 : 1); ++n) {
      MatchTerm d = t;
      if (t.net) (n == 0 ? d.src_net : d.dst_net) = t.net;
      d.net.reset();
      for (int p = 0; p < (t.port ? 2 : 1); ++p) {
        MatchTerm x = d;
        if (t.port) (p == 0 ? x.src_port : x.dst_port) = t.port;
        x.port.reset();
        directed.push_back(x);
      }
    }
    for (const MatchTerm& d : directed) add_ports(out, base_entry(d), d.src_port, d.dst_port);
    if (out.size() > max_entries_per_rule) {
      throw std::invalid_argument("steering: '" + match.str() + "' needs more than " +
                                  std::to_string(max_entries_per_rule) +
                                  " table entries (port ranges as aligned blocks)");
    }
  }
  return out;
}

}  // namespace

struct Steering::State {
  struct Shape {
    std::uint32_t slot = 0;
    std::uint32_t tag = 0;
    std::uint32_t rules = 0;  // rules with entries of this mask
  };
  struct Rule {
    RuleId id = 0;
    Match match;
    std::uint32_t slot = 0;
    std::vector<KeyBytes> keys;
    std::vector<TupleBytes> shapes;
  };
  std::vector<detail::SteerTables*> programs;
  std::map<TupleBytes, Shape> shapes;                   // by mask
  std::map<KeyBytes, std::vector<std::uint32_t>> keys;  // entry -> rule slots, first is in BPF
  std::vector<Rule> rules;
  std::array<bool, AFXDP_STEER_RULES> slot_used{};
  std::array<bool, AFXDP_STEER_SHAPES> shape_used{};
  std::uint32_t generation = 0;
  RuleId next_id = 1;
  bool active = false;

  void write_entry(const KeyBytes& key, std::uint32_t slot) const;
  void erase_entry(const KeyBytes& key) const;
  void zero_hits(std::uint32_t slot) const;
  void publish(const Shape& shape, const TupleBytes& mask) const;
  void withdraw(const Shape& shape) const;
  void publish_all() const;
  void insert(Rule& rule, const std::vector<Entry>& entries);
  void erase(const Rule& rule);
};

namespace {

std::atomic_ref<std::uint32_t> word(std::uint32_t& w) { return std::atomic_ref<std::uint32_t>(w); }

}  // namespace

// A key's tag names its map: shapes that mask an address bit are "wide" (the whole tuple);
// the others are looked up on the tag and the tuple's first bytes, which start every key.
int map_of(const detail::SteerTables& p, const KeyBytes& key) {
  std::uint32_t tag = 0;
  std::memcpy(&tag, key.data(), sizeof tag);
  return (tag & AFXDP_STEER_WIDE) != 0 ? p.entries : p.narrow;
}

void Steering::State::write_entry(const KeyBytes& key, std::uint32_t slot) const {
  for (detail::SteerTables* p : programs) {
    if (bpf_map_update_elem(map_of(*p, key), key.data(), &slot, BPF_ANY) != 0) {
      throw_errno(errno, "steering: bpf_map_update_elem on steer_entries");
    }
  }
}

void Steering::State::erase_entry(const KeyBytes& key) const {
  for (detail::SteerTables* p : programs) bpf_map_delete_elem(map_of(*p, key), key.data());
}

void Steering::State::zero_hits(std::uint32_t slot) const {
  const int cpus = libbpf_num_possible_cpus();
  const std::vector<std::uint64_t> zeros(cpus > 0 ? static_cast<std::size_t>(cpus) : 1, 0);
  for (detail::SteerTables* p : programs) {
    if (bpf_map_update_elem(p->hits, &slot, zeros.data(), BPF_ANY) != 0) {
      throw_errno(errno, "steering: bpf_map_update_elem on steer_hits");
    }
  }
}

// The mask first, then its tag (release): a frame that sees the tag sees the mask.
void Steering::State::publish(const Shape& shape, const TupleBytes& mask) const {
  for (detail::SteerTables* p : programs) {
    std::memcpy(&p->shapes->masks[shape.slot], mask.data(), mask.size());
    word(p->shapes->tags[shape.slot]).store(shape.tag, std::memory_order_release);
    auto count = word(p->shapes->count);
    if (count.load(std::memory_order_relaxed) <= shape.slot) {
      count.store(shape.slot + 1, std::memory_order_release);
    }
  }
}

void Steering::State::withdraw(const Shape& shape) const {
  for (detail::SteerTables* p : programs) {
    word(p->shapes->tags[shape.slot]).store(0, std::memory_order_release);
  }
}

void Steering::State::publish_all() const {
  for (const auto& [mask, shape] : shapes) publish(shape, mask);
  if (!active) return;
  for (detail::SteerTables* p : programs) word(p->shapes->on).store(1, std::memory_order_release);
}

// Entries first, then the shapes they use: the rule can match only once it is whole.
void Steering::State::insert(Rule& rule, const std::vector<Entry>& entries) {
  std::vector<std::pair<Shape*, TupleBytes>> fresh;
  for (const Entry& e : entries) {
    const TupleBytes mask = bytes_of(e.mask);
    auto [it, added] = shapes.try_emplace(mask);
    Shape& shape = it->second;
    if (added) {
      std::uint32_t s = 0;
      while (shape_used.at(s)) ++s;  // free: checked by the caller
      shape_used.at(s) = true;
      const bool addresses = std::any_of(mask.begin() + AFXDP_STEER_NARROW_SIZE, mask.end(),
                                         [](std::uint8_t b) { return b != 0; });
      shape = {.slot = s,
               .tag = (++generation << 6) | (addresses ? AFXDP_STEER_WIDE : 0U) | s,
               .rules = 0};
      fresh.emplace_back(&shape, mask);
    }
    if (rule.shapes.empty() ||
        std::find(rule.shapes.begin(), rule.shapes.end(), mask) == rule.shapes.end()) {
      rule.shapes.push_back(mask);
      ++shape.rules;
    }
    afxdp_steer_key key{};
    key.tag = shape.tag;
    key.tuple = e.value;
    KeyBytes k{};
    std::memcpy(k.data(), &key, sizeof key);
    if (std::find(rule.keys.begin(), rule.keys.end(), k) != rule.keys.end()) continue;
    std::vector<std::uint32_t>& owners = keys[k];
    rule.keys.push_back(k);
    owners.push_back(rule.slot);
    if (owners.size() == 1) write_entry(k, rule.slot);
  }
  for (const auto& [shape, mask] : fresh) publish(*shape, mask);
}

// Entries first (a frame of this rule then passes), shapes no rule uses after.
void Steering::State::erase(const Rule& rule) {
  for (const KeyBytes& k : rule.keys) {
    auto it = keys.find(k);
    if (it == keys.end()) continue;
    std::vector<std::uint32_t>& owners = it->second;
    const bool first = !owners.empty() && owners.front() == rule.slot;
    std::erase(owners, rule.slot);
    if (owners.empty()) {
      erase_entry(k);
      keys.erase(it);
    } else if (first) {
      write_entry(k, owners.front());  // another rule has the same entry: it keeps matching
    }
  }
  for (const TupleBytes& mask : rule.shapes) {
    auto it = shapes.find(mask);
    if (it == shapes.end() || --it->second.rules > 0) continue;
    withdraw(it->second);
    shape_used.at(it->second.slot) = false;
    shapes.erase(it);
  }
  slot_used.at(rule.slot) = false;
  std::uint32_t count = 0;
  for (std::uint32_t i = 0; i < AFXDP_STEER_SHAPES; ++i) {
    if (shape_used.at(i)) count = i + 1;
  }
  for (detail::SteerTables* p : programs) {
    word(p->shapes->count).store(count, std::memory_order_release);
  }
}

Steering::Steering() : state_(std::make_unique<State>()) {}
Steering::Steering(Steering&&) noexcept = default;
Steering& Steering::operator=(Steering&&) noexcept = default;
Steering::~Steering() = default;

void Steering::attach(XskProgram& program) {
  detail::SteerTables* tables = program.steer_tables();
  if (tables == nullptr) {
    throw std::invalid_argument("steering: rules need the embedded redirect program");
  }
  State& s = *state_;
  // The new program gets everything so far, alone: counters, entries, then shapes and `on`.
  std::vector<detail::SteerTables*> others = std::move(s.programs);
  s.programs = {tables};
  try {
    for (const State::Rule& r : s.rules) s.zero_hits(r.slot);
    for (const auto& [k, owners] : s.keys) s.write_entry(k, owners.front());
    s.publish_all();
  } catch (...) {
    s.programs = std::move(others);
    throw;
  }
  others.push_back(tables);
  s.programs = std::move(others);
}

namespace {

[[noreturn]] void full(const Match& match, const std::string& what) {
  throw std::system_error(ENOSPC, std::generic_category(),
                          "steering: add '" + match.str() + "': " + what);
}

}  // namespace

RuleId Steering::add(const Match& match) {
  State& s = *state_;
  if (s.programs.empty()) {
    throw std::logic_error(
        "steering: no embedded redirect program (receive off, an own program, or a loopback)");
  }
  const std::vector<Entry> entries = compile(match);
  std::size_t new_shapes = 0;
  std::vector<TupleBytes> seen;
  for (const Entry& e : entries) {
    const TupleBytes mask = bytes_of(e.mask);
    if (s.shapes.contains(mask) || std::find(seen.begin(), seen.end(), mask) != seen.end())
      continue;
    seen.push_back(mask);
    ++new_shapes;
  }
  if (s.shapes.size() + new_shapes > AFXDP_STEER_SHAPES) {
    full(match, std::to_string(s.shapes.size()) + " distinct field masks in use, " +
                    std::to_string(new_shapes) + " more needed, at most " +
                    std::to_string(AFXDP_STEER_SHAPES));
  }
  if (s.keys.size() + entries.size() > AFXDP_STEER_ENTRIES) {
    full(match, "more than " + std::to_string(AFXDP_STEER_ENTRIES) + " entries in all");
  }
  std::uint32_t slot = 0;
  while (slot < AFXDP_STEER_RULES && s.slot_used.at(slot)) ++slot;
  if (slot == AFXDP_STEER_RULES) full(match, std::to_string(AFXDP_STEER_RULES) + " rules");

  State::Rule rule{.id = s.next_id, .match = match, .slot = slot, .keys = {}, .shapes = {}};
  s.slot_used.at(slot) = true;
  try {
    s.zero_hits(slot);
    s.insert(rule, entries);
  } catch (...) {
    s.erase(rule);
    throw;
  }
  ++s.next_id;
  s.rules.push_back(std::move(rule));
  if (!s.active) {
    s.active = true;
    s.publish_all();
  }
  return s.rules.back().id;
}

void Steering::remove(RuleId id) {
  State& s = *state_;
  auto it = std::find_if(s.rules.begin(), s.rules.end(),
                         [id](const State::Rule& r) { return r.id == id; });
  if (it == s.rules.end()) {
    throw std::out_of_range("steering: no rule " + std::to_string(id));
  }
  s.erase(*it);
  s.rules.erase(it);
}

std::uint64_t Steering::hits(RuleId id) const {
  const State& s = *state_;
  auto it = std::find_if(s.rules.begin(), s.rules.end(),
                         [id](const State::Rule& r) { return r.id == id; });
  if (it == s.rules.end()) {
    throw std::out_of_range("steering: no rule " + std::to_string(id));
  }
  const int cpus = libbpf_num_possible_cpus();
  std::vector<std::uint64_t> values(cpus > 0 ? static_cast<std::size_t>(cpus) : 1, 0);
  std::uint64_t sum = 0;
  for (const detail::SteerTables* p : s.programs) {
    if (bpf_map_lookup_elem(p->hits, &it->slot, values.data()) != 0) {
      throw_errno(errno, "steering: bpf_map_lookup_elem on steer_hits");
    }
    for (const std::uint64_t v : values) sum += v;
  }
  return sum;
}

std::vector<SteeringRule> Steering::list() const {
  std::vector<SteeringRule> out;
  for (const State::Rule& r : state_->rules) out.push_back({r.id, r.match, hits(r.id)});
  return out;
}

bool Steering::active() const noexcept { return state_->active; }

}  // namespace afxdp
