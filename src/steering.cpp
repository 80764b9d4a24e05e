#include <afxdp/detail/shape_tags.hpp>
#include <afxdp/error.hpp>
#include <afxdp/steering/steering.hpp>

#include "steer_compile.hpp"
#include "steer_tables.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>

namespace afxdp {
namespace {

using Tuple = afxdp_steer_tuple;
using TupleBytes = std::array<std::uint8_t, sizeof(Tuple)>;
using KeyBytes = std::array<std::uint8_t, sizeof(afxdp_steer_key)>;
// A narrow key is the first bytes of a wide one (the tag, then the tuple's head).
static_assert(offsetof(afxdp_steer_key, tuple) == offsetof(afxdp_steer_narrow_key, head));
static_assert(offsetof(afxdp_steer_tuple, src) == AFXDP_STEER_NARROW_SIZE);
static_assert(detail::ShapeTags::slots == AFXDP_STEER_SHAPES);
static_assert(detail::ShapeTags::wide_bit == AFXDP_STEER_WIDE);
static_assert(detail::ShapeTags::slots - 1 == AFXDP_STEER_SHAPE_BITS);

using detail::CompiledRule;
using detail::SteerEntry;
using detail::SteerPortCells;
using detail::SteerSignature;

constexpr std::uint32_t port_cells = AFXDP_STEER_PORT_CELLS;

TupleBytes bytes_of(const Tuple& t) {
  TupleBytes b{};
  std::memcpy(b.data(), &t, sizeof t);
  return b;
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
    std::vector<SteerPortCells> ports;
  };
  std::vector<detail::SteerTables*> programs;
  std::map<TupleBytes, Shape> shapes;                   // by mask
  std::map<KeyBytes, std::vector<std::uint32_t>> keys;  // entry -> rule slots, first is in BPF
  std::map<SteerSignature, std::uint32_t> signatures;   // of the entries in `keys`: how many
  std::vector<std::uint16_t> port_table = std::vector<std::uint16_t>(port_cells << 16U);
  std::vector<Rule> rules;
  std::array<bool, AFXDP_STEER_RULES> slot_used{};
  std::array<bool, AFXDP_STEER_SHAPES> shape_used{};
  detail::ShapeTags tags;
  RuleId next_id = 1;
  std::atomic<bool> active = false;
  // Every call takes it (add and remove on one thread, hits() on another crashed: issue 41).
  mutable std::mutex mutex;

  void write_entry(const KeyBytes& key, std::uint32_t slot) const;
  void erase_entry(const KeyBytes& key) const;
  void zero_hits(std::uint32_t slot) const;
  [[nodiscard]] std::uint64_t hits(std::uint32_t slot) const;
  void publish(const Shape& shape, const TupleBytes& mask) const;
  void withdraw(const Shape& shape) const;
  void publish_all() const;
  void write_filter() const;
  void write_port(std::uint32_t index, std::uint16_t value);
  void insert_ports(Rule& rule, const std::vector<SteerPortCells>& ports);
  void erase_ports(const Rule& rule);
  void count_signature(const KeyBytes& key, int delta);
  void insert(Rule& rule, const std::vector<SteerEntry>& entries);
  void erase(const Rule& rule);
};

namespace {

std::atomic_ref<std::uint32_t> word(std::uint32_t& w) { return std::atomic_ref<std::uint32_t>(w); }

// Each word the program reads once per frame, stored whole; words that did not change are
// not written.
void store_words(std::uint32_t* to, const std::uint32_t* from, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (word(to[i]).load(std::memory_order_relaxed) != from[i]) {
      word(to[i]).store(from[i], std::memory_order_release);
    }
  }
}

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
  write_filter();
  for (const auto& [mask, shape] : shapes) publish(shape, mask);
  if (!active) return;
  for (detail::SteerTables* p : programs) word(p->shapes->on).store(1, std::memory_order_release);
}

void Steering::State::write_filter() const {
  const afxdp_steer_filter f = detail::filter_of(signatures);
  for (detail::SteerTables* p : programs) {
    store_words(p->filter->by_flags, f.by_flags, std::size(f.by_flags));
    store_words(p->filter->by_proto, f.by_proto, std::size(f.by_proto));
    store_words(p->filter->by_ethertype, f.by_ethertype, std::size(f.by_ethertype));
  }
}

void Steering::State::write_port(std::uint32_t index, std::uint16_t value) {
  port_table.at(index) = value;
  for (detail::SteerTables* p : programs) {
    std::atomic_ref(p->ports->slots[index]).store(value, std::memory_order_release);
  }
}

// A cell that another rule holds stays with it (as a shared hash entry does).
void Steering::State::insert_ports(Rule& rule, const std::vector<SteerPortCells>& ports) {
  const auto mine = static_cast<std::uint16_t>(rule.slot + 1);
  for (const SteerPortCells& pc : ports) {
    rule.ports.push_back(pc);
    for (std::uint32_t cell = 0; cell < port_cells; ++cell) {
      if (((pc.cells >> cell) & 1U) == 0) continue;
      for (std::uint32_t port = pc.ports.first; port <= pc.ports.last; ++port) {
        const std::uint32_t i = (cell << 16U) | port;
        if (port_table[i] == 0) write_port(i, mine);
      }
    }
  }
}

// Each cell the rule held goes to the first other rule (in the order added) that covers it, in
// one store, or to none.
void Steering::State::erase_ports(const Rule& rule) {
  const auto mine = static_cast<std::uint16_t>(rule.slot + 1);
  for (const SteerPortCells& pc : rule.ports) {
    for (std::uint32_t cell = 0; cell < port_cells; ++cell) {
      if (((pc.cells >> cell) & 1U) == 0) continue;
      std::vector<std::uint16_t> heirs(pc.ports.last - pc.ports.first + 1U, 0);
      for (auto r = rules.rbegin(); r != rules.rend(); ++r) {
        if (r->slot == rule.slot) continue;
        for (const SteerPortCells& other : r->ports) {
          if (((other.cells >> cell) & 1U) == 0) continue;
          const std::uint32_t lo = std::max(other.ports.first, pc.ports.first);
          const std::uint32_t hi = std::min(other.ports.last, pc.ports.last);
          for (std::uint32_t port = lo; port <= hi; ++port) {
            heirs[port - pc.ports.first] = static_cast<std::uint16_t>(r->slot + 1);
          }
        }
      }
      for (std::uint32_t port = pc.ports.first; port <= pc.ports.last; ++port) {
        const std::uint32_t i = (cell << 16U) | port;
        if (port_table[i] == mine) write_port(i, heirs[port - pc.ports.first]);
      }
    }
  }
}

void Steering::State::count_signature(const KeyBytes& key, int delta) {
  afxdp_steer_key k{};
  std::memcpy(&k, key.data(), sizeof k);
  const auto shape = std::find_if(shapes.begin(), shapes.end(),
                                  [&](const auto& s) { return s.second.tag == k.tag; });
  if (shape == shapes.end()) return;
  Tuple mask{};
  std::memcpy(&mask, shape->first.data(), sizeof mask);
  const SteerSignature sig = detail::signature_of(shape->second.slot, mask, k.tuple);
  if (delta > 0) {
    ++signatures[sig];
  } else if (auto it = signatures.find(sig); it != signatures.end() && --it->second == 0) {
    signatures.erase(it);
  }
}

// Entries first, then the shapes they use: the rule can match only once it is whole.
void Steering::State::insert(Rule& rule, const std::vector<SteerEntry>& entries) {
  std::vector<std::pair<Shape*, TupleBytes>> fresh;
  for (const SteerEntry& e : entries) {
    const TupleBytes mask = bytes_of(e.mask);
    auto [it, added] = shapes.try_emplace(mask);
    Shape& shape = it->second;
    if (added) {
      std::uint32_t s = 0;
      while (shape_used.at(s)) ++s;  // free: checked by the caller
      shape_used.at(s) = true;
      const bool addresses = std::any_of(mask.begin() + AFXDP_STEER_NARROW_SIZE, mask.end(),
                                         [](std::uint8_t b) { return b != 0; });
      shape = {.slot = s, .tag = tags.next(s, addresses), .rules = 0};
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
    if (owners.size() == 1) {
      write_entry(k, rule.slot);
      count_signature(k, +1);
    }
  }
  write_filter();
  for (const auto& [shape, mask] : fresh) publish(*shape, mask);
}

// Entries first (a frame of this rule then passes), shapes no rule uses after, then the filter.
void Steering::State::erase(const Rule& rule) {
  erase_ports(rule);
  for (const KeyBytes& k : rule.keys) {
    auto it = keys.find(k);
    if (it == keys.end()) continue;
    std::vector<std::uint32_t>& owners = it->second;
    const bool first = !owners.empty() && owners.front() == rule.slot;
    std::erase(owners, rule.slot);
    if (owners.empty()) {
      erase_entry(k);
      count_signature(k, -1);
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
  write_filter();
}

Steering::Steering() : state_(std::make_unique<State>()) {}
Steering::Steering(Steering&&) noexcept = default;
Steering& Steering::operator=(Steering&&) noexcept = default;
Steering::~Steering() = default;

void detail::add_program(Steering& steering, SteerTables& tables) {
  Steering::State& s = *steering.state_;
  const std::lock_guard lock(s.mutex);
  // The new program gets everything so far, alone: counters, entries, then shapes and `on`.
  std::vector<SteerTables*> others = std::move(s.programs);
  s.programs = {&tables};
  try {
    for (const Steering::State::Rule& r : s.rules) s.zero_hits(r.slot);
    for (const auto& [k, owners] : s.keys) s.write_entry(k, owners.front());
    for (std::uint32_t i = 0; i < s.port_table.size(); ++i) {
      if (s.port_table[i] != 0) {
        std::atomic_ref(tables.ports->slots[i]).store(s.port_table[i], std::memory_order_release);
      }
    }
    s.publish_all();
  } catch (...) {
    s.programs = std::move(others);
    throw;
  }
  others.push_back(&tables);
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
  const std::lock_guard lock(s.mutex);
  if (s.programs.empty()) {
    throw std::logic_error(
        "steering: no embedded redirect program (receive off, an own program, or a loopback)");
  }
  const CompiledRule compiled = detail::compile(match);
  const std::vector<SteerEntry>& entries = compiled.entries;
  std::size_t new_shapes = 0;
  std::vector<TupleBytes> seen;
  for (const SteerEntry& e : entries) {
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

  State::Rule rule{
      .id = s.next_id, .match = match, .slot = slot, .keys = {}, .shapes = {}, .ports = {}};
  s.slot_used.at(slot) = true;
  try {
    s.zero_hits(slot);
    s.insert_ports(rule, compiled.ports);
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
  const std::lock_guard lock(s.mutex);
  auto it = std::find_if(s.rules.begin(), s.rules.end(),
                         [id](const State::Rule& r) { return r.id == id; });
  if (it == s.rules.end()) {
    throw std::out_of_range("steering: no rule " + std::to_string(id));
  }
  s.erase(*it);
  s.rules.erase(it);
}

std::uint64_t Steering::State::hits(std::uint32_t slot) const {
  const int cpus = libbpf_num_possible_cpus();
  std::vector<std::uint64_t> values(cpus > 0 ? static_cast<std::size_t>(cpus) : 1, 0);
  std::uint64_t sum = 0;
  for (const detail::SteerTables* p : programs) {
    if (bpf_map_lookup_elem(p->hits, &slot, values.data()) != 0) {
      throw_errno(errno, "steering: bpf_map_lookup_elem on steer_hits");
    }
    for (const std::uint64_t v : values) sum += v;
  }
  return sum;
}

std::uint64_t Steering::hits(RuleId id) const {
  const State& s = *state_;
  const std::lock_guard lock(s.mutex);
  auto it = std::find_if(s.rules.begin(), s.rules.end(),
                         [id](const State::Rule& r) { return r.id == id; });
  if (it == s.rules.end()) {
    throw std::out_of_range("steering: no rule " + std::to_string(id));
  }
  return s.hits(it->slot);
}

std::vector<SteeringRule> Steering::list() const {
  const State& s = *state_;
  const std::lock_guard lock(s.mutex);
  std::vector<SteeringRule> out;
  for (const State::Rule& r : s.rules) out.push_back({r.id, r.match, s.hits(r.slot)});
  return out;
}

bool Steering::active() const noexcept { return state_->active; }

}  // namespace afxdp
