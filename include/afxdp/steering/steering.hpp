// afxdp::Steering: which frames the redirect program gives the AF_XDP sockets. Each rule is a
// Match; a frame that matches any rule goes to the socket of its rx queue, every other frame to
// the kernel (XDP_PASS). With no rule ever added, every frame goes to the socket.
//
//   port.steering().add(afxdp::Match::parse("udp dst port 53"));
//
// The rules live in BPF maps of the embedded redirect program (hash lookups, one per distinct
// field mask in use: the per-frame cost does not grow with the number of rules) and can be added
// and removed while traffic flows: a rule's entries are in place before it can match, and other
// rules' frames are never affected. Limits and the update order: docs/api.md "Steering".
//
// Threading: control path; any thread, calls are serialised by a lock (a frame never waits
// for it). Moving a Steering while another thread uses it is not safe.
#pragma once

#include <afxdp/steering/match.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace afxdp {

class Steering;

namespace detail {
struct SteerTables;
// Apply the rules (those present and those to come) to the program whose tables these are, too;
// Port::open does this for its embedded programs (src/steer_tables.hpp). Not an API.
void add_program(Steering& steering, SteerTables& tables);
}  // namespace detail

using RuleId = std::uint32_t;

struct SteeringRule {
  RuleId id = 0;
  Match match;
  std::uint64_t hits = 0;  // frames it took, summed over CPUs and programs
};

class Steering {
 public:
  Steering();
  Steering(Steering&&) noexcept;
  Steering& operator=(Steering&&) noexcept;
  ~Steering();

  // Throws std::logic_error without a program, std::invalid_argument for a Match the tables
  // cannot hold (too many entries), std::system_error (ENOSPC) when the shape, rule or entry
  // tables are full; nothing changes when it throws.
  RuleId add(const Match& match);
  // Throws std::out_of_range for an id that is not a rule.
  void remove(RuleId id);
  [[nodiscard]] std::uint64_t hits(RuleId id) const;
  [[nodiscard]] std::vector<SteeringRule> list() const;  // in the order added
  [[nodiscard]] bool active() const noexcept;            // a rule was added: unmatched frames pass

 private:
  struct State;
  friend void detail::add_program(Steering& steering, detail::SteerTables& tables);
  std::unique_ptr<State> state_;
};

}  // namespace afxdp
