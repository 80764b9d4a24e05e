#include <afxdp/net/headers.hpp>
#include <afxdp/steering/match.hpp>

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <stdexcept>

namespace afxdp {
namespace {

constexpr std::uint16_t ether_ip = net::ether_type_ipv4;
constexpr std::uint16_t ether_ip6 = net::ether_type_ipv6;
constexpr std::uint16_t ether_arp = net::ether_type_arp;
constexpr std::uint16_t ether_rarp = 0x8035;
constexpr std::uint8_t proto_icmp = net::ip_protocol_icmp;
constexpr std::uint8_t proto_tcp = net::ip_protocol_tcp;
constexpr std::uint8_t proto_udp = net::ip_protocol_udp;
constexpr std::uint8_t proto_icmp6 = 58;
constexpr std::uint8_t proto_sctp = 132;

struct Token {
  std::string_view text;
  std::size_t position = 0;  // 1-based
};

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i])) != 0) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])) == 0) ++i;
    tokens.push_back({s.substr(start, i - start), start + 1});
  }
  return tokens;
}

bool carries_ports(std::uint8_t protocol) {
  return protocol == proto_tcp || protocol == proto_udp || protocol == proto_sctp;
}

bool is_ip(std::uint16_t ethertype) { return ethertype == ether_ip || ethertype == ether_ip6; }

std::string ethertype_name(std::uint16_t e) {
  if (e == ether_ip) return "ip";
  if (e == ether_ip6) return "ip6";
  if (e == ether_arp) return "arp";
  if (e == ether_rarp) return "rarp";
  char text[32];
  std::snprintf(text, sizeof text, "ether proto 0x%04x", e);
  return text;
}

class Parser {
 public:
  explicit Parser(std::string_view expression)
      : expression_(expression), tokens_(tokenize(expression)) {}

  std::vector<MatchTerm> expression() {
    std::vector<MatchTerm> terms;
    if (tokens_.empty()) return {MatchTerm{}};
    for (;;) {
      terms.push_back(conjunction());
      if (at_end()) return terms;
      if (peek() != "or") fail(current(), "expected 'and' or 'or'");
      ++next_;
    }
  }

 private:
  [[noreturn]] void fail(const Token& token, const std::string& why) const {
    throw std::invalid_argument("match \"" + around(token.position - 1) + "\": '" +
                                shortened(token.text) + "' at " + std::to_string(token.position) +
                                ": " + why);
  }
  [[noreturn]] void fail_end(const std::string& why) const {
    throw std::invalid_argument("match \"" + around(expression_.size()) + "\": end of input at " +
                                std::to_string(expression_.size() + 1) + ": " + why);
  }
  // The expression, or for a long one the part around `at` (0-based): an error names the word and
  // its surroundings, not 100 KB of rules.
  [[nodiscard]] std::string around(std::size_t at) const {
    constexpr std::size_t whole = 120, side = 40;
    if (expression_.size() <= whole) return std::string(expression_);
    const std::size_t from = at > side ? at - side : 0;
    const std::size_t to = std::min(expression_.size(), at + side);
    return (from > 0 ? "..." : "") + std::string(expression_.substr(from, to - from)) +
           (to < expression_.size() ? "..." : "");
  }
  [[nodiscard]] static std::string shortened(std::string_view word) {
    constexpr std::size_t most = 40;
    return word.size() <= most ? std::string(word) : std::string(word.substr(0, most)) + "...";
  }
  [[nodiscard]] bool at_end() const { return next_ >= tokens_.size(); }
  [[nodiscard]] std::string_view peek() const {
    return at_end() ? std::string_view{} : tokens_[next_].text;
  }
  [[nodiscard]] const Token& current() const { return tokens_[next_]; }
  const Token& take(const char* expected) {
    if (at_end()) fail_end(std::string("expected ") + expected);
    return tokens_[next_++];
  }

  MatchTerm conjunction() {
    MatchTerm term;
    primitive(term);
    while (peek() == "and") {
      ++next_;
      primitive(term);
    }
    return term;
  }

  void primitive(MatchTerm& t);
  void qualified(MatchTerm& t, const Token& first);
  std::uint32_t number(const Token& token, std::uint32_t max);
  PortRange range(const Token& token);
  IpPrefix prefix(const Token& token, bool with_length);

  void set_ethertype(MatchTerm& t, std::uint16_t e, const Token& token);
  void set_protocol(MatchTerm& t, std::uint8_t p, const Token& token);
  void set_net(MatchTerm& t, std::optional<IpPrefix>& field, const IpPrefix& p, const Token& token);
  void set_port(MatchTerm& t, std::optional<PortRange>& field, PortRange r, const Token& token);

  std::string_view expression_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
};

void Parser::primitive(MatchTerm& t) {
  const Token& token = take("a primitive (udp, tcp, port, net, ip, ip6, arp, vlan, ...)");
  const std::string_view w = token.text;
  if (w == "not" || w == "!" || w.front() == '(' || w.front() == ')') {
    fail(token, "negation and parentheses are not supported");
  }
  if (w == "ether") {
    const Token& proto = take("'proto' after 'ether'");
    if (proto.text != "proto") fail(proto, "expected 'proto' after 'ether'");
    const Token& value = take("an EtherType after 'ether proto'");
    const auto e = static_cast<std::uint16_t>(number(value, 0xffff));
    if (e < 0x0600) fail(value, "not an EtherType (below 0x0600)");
    if (e == 0x8100 || e == 0x88a8) fail(value, "VLAN tags are matched with 'vlan'");
    return set_ethertype(t, e, value);
  }
  if (w == "arp") return set_ethertype(t, ether_arp, token);
  if (w == "rarp") return set_ethertype(t, ether_rarp, token);
  if (w == "ip" || w == "ip6") {
    set_ethertype(t, w == "ip" ? ether_ip : ether_ip6, token);
    if (peek() != "proto") return;
    ++next_;
    const Token& value = take("a protocol number after 'proto'");
    return set_protocol(t, static_cast<std::uint8_t>(number(value, 255)), value);
  }
  if (w == "proto") {
    const Token& value = take("a protocol number after 'proto'");
    return set_protocol(t, static_cast<std::uint8_t>(number(value, 255)), value);
  }
  if (w == "icmp" || w == "icmp6") {
    set_ethertype(t, w == "icmp" ? ether_ip : ether_ip6, token);
    return set_protocol(t, w == "icmp" ? proto_icmp : proto_icmp6, token);
  }
  if (w == "vlan") {
    if (t.vlan_tags == 2) fail(token, "at most two VLAN tags");
    if (t.ethertype || t.protocol) fail(token, "VLAN tags come before the other primitives");
    const std::uint8_t tag = t.vlan_tags++;
    if (!at_end() && std::isdigit(static_cast<unsigned char>(peek().front())) != 0) {
      t.vlan_ids.at(tag) = static_cast<std::uint16_t>(number(tokens_[next_++], 4095));
    }
    return;
  }
  if (w == "udp" || w == "tcp" || w == "sctp") {
    set_protocol(t, w == "udp" ? proto_udp : w == "tcp" ? proto_tcp : proto_sctp, token);
    const std::string_view n = peek();
    if (n == "src" || n == "dst" || n == "port" || n == "portrange") qualified(t, take(""));
    return;
  }
  if (w == "src" || w == "dst" || w == "port" || w == "portrange" || w == "net" || w == "host") {
    return qualified(t, token);
  }
  fail(token, "unknown word");
}

// [src|dst] (port N | portrange A-B | net ADDR/LEN | host ADDR)
void Parser::qualified(MatchTerm& t, const Token& first) {
  const Token* kind = &first;
  int direction = 0;  // -1 src, 1 dst, 0 either
  if (first.text == "src" || first.text == "dst") {
    direction = first.text == "src" ? -1 : 1;
    kind = &take("port, portrange, net or host");
  }
  const std::string_view k = kind->text;
  if (k == "port" || k == "portrange") {
    const Token& value = take(k == "port" ? "a port number" : "a port range A-B");
    const PortRange r = k == "port" ? PortRange{static_cast<std::uint16_t>(number(value, 65535)),
                                                static_cast<std::uint16_t>(number(value, 65535))}
                                    : range(value);
    return set_port(t, direction < 0 ? t.src_port : direction > 0 ? t.dst_port : t.port, r, value);
  }
  if (k == "net" || k == "host") {
    const Token& value = take(k == "net" ? "a prefix ADDRESS/LENGTH" : "an address");
    const IpPrefix p = prefix(value, k == "net");
    return set_net(t, direction < 0 ? t.src_net : direction > 0 ? t.dst_net : t.net, p, value);
  }
  fail(*kind, "expected port, portrange, net or host after '" + std::string(first.text) + "'");
}

std::uint32_t Parser::number(const Token& token, std::uint32_t max) {
  std::string_view s = token.text;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (error == std::errc::result_out_of_range) fail(token, "out of range 0-" + std::to_string(max));
  if (error != std::errc{} || end != s.data() + s.size()) fail(token, "not a number");
  if (value > max) fail(token, "out of range 0-" + std::to_string(max));
  return value;
}

PortRange Parser::range(const Token& token) {
  const std::size_t dash = token.text.find('-');
  if (dash == std::string_view::npos) fail(token, "expected a port range A-B");
  const Token a{token.text.substr(0, dash), token.position};
  const Token b{token.text.substr(dash + 1), token.position + dash + 1};
  const auto first = static_cast<std::uint16_t>(number(a, 65535));
  const auto last = static_cast<std::uint16_t>(number(b, 65535));
  if (first > last) fail(token, "the range is empty (first > last)");
  return {first, last};
}

IpPrefix Parser::prefix(const Token& token, bool with_length) {
  std::string_view address = token.text;
  std::optional<std::uint32_t> length;
  if (const std::size_t slash = token.text.find('/'); slash != std::string_view::npos) {
    if (!with_length) fail(token, "a host is an address without /length");
    address = token.text.substr(0, slash);
    length = number({token.text.substr(slash + 1), token.position + slash + 1}, 128);
  } else if (with_length) {
    fail(token, "expected a prefix ADDRESS/LENGTH");
  }
  IpPrefix p;
  const std::string text(address);
  p.v6 = text.find(':') != std::string::npos;
  if (::inet_pton(p.v6 ? AF_INET6 : AF_INET, text.c_str(), p.address.data()) != 1) {
    fail(token, p.v6 ? "not an IPv6 address" : "not an IPv4 address");
  }
  const std::uint32_t bits = p.v6 ? 128 : 32;
  if (length.value_or(bits) > bits) fail(token, "prefix length beyond " + std::to_string(bits));
  p.length = static_cast<std::uint8_t>(length.value_or(bits));
  for (std::uint32_t bit = p.length; bit < bits; ++bit) {
    if ((p.address.at(bit / 8) & (0x80U >> (bit % 8))) != 0) {
      fail(token, "address bits set beyond the prefix length");
    }
  }
  return p;
}

void Parser::set_ethertype(MatchTerm& t, std::uint16_t e, const Token& token) {
  if (t.ethertype && *t.ethertype != e) {
    fail(token, "contradicts '" + ethertype_name(*t.ethertype) + "' given before");
  }
  const bool ip_fields =
      t.protocol || t.src_net || t.dst_net || t.net || t.src_port || t.dst_port || t.port;
  if (!is_ip(e) && ip_fields) fail(token, "contradicts an IP field given before");
  t.ethertype = e;
}

void Parser::set_protocol(MatchTerm& t, std::uint8_t p, const Token& token) {
  if (t.protocol && *t.protocol != p) {
    fail(token, "contradicts protocol " + std::to_string(*t.protocol) + " given before");
  }
  if (t.ethertype && !is_ip(*t.ethertype)) {
    fail(token, "contradicts '" + ethertype_name(*t.ethertype) + "' given before (not IP)");
  }
  if ((t.src_port || t.dst_port || t.port) && !carries_ports(p)) {
    fail(token, "contradicts a port given before (only tcp, udp and sctp have ports)");
  }
  t.protocol = p;
}

void Parser::set_net(MatchTerm& t, std::optional<IpPrefix>& field, const IpPrefix& p,
                     const Token& token) {
  if (field) fail(token, "a second address of the same direction");
  if ((&field == &t.net && (t.src_net || t.dst_net)) || (&field != &t.net && t.net)) {
    fail(token, "either-direction 'net'/'host' cannot be combined with 'src' or 'dst' ones");
  }
  set_ethertype(t, p.v6 ? ether_ip6 : ether_ip, token);
  field = p;
}

void Parser::set_port(MatchTerm& t, std::optional<PortRange>& field, PortRange r,
                      const Token& token) {
  if (field) fail(token, "a second port of the same direction");
  if ((&field == &t.port && (t.src_port || t.dst_port)) || (&field != &t.port && t.port)) {
    fail(token, "either-direction 'port' cannot be combined with 'src' or 'dst' ones");
  }
  if (t.ethertype && !is_ip(*t.ethertype)) {
    fail(token, "contradicts '" + ethertype_name(*t.ethertype) + "' given before (not IP)");
  }
  if (t.protocol && !carries_ports(*t.protocol)) {
    fail(token, "contradicts protocol " + std::to_string(*t.protocol) + " (no ports)");
  }
  field = r;
}

std::string address_text(const IpPrefix& p) {
  char text[INET6_ADDRSTRLEN];
  ::inet_ntop(p.v6 ? AF_INET6 : AF_INET, p.address.data(), text, sizeof text);
  const bool host = p.length == (p.v6 ? 128 : 32);
  return host ? std::string("host ") + text
              : std::string("net ") + text + "/" + std::to_string(p.length);
}

std::string port_text(const PortRange& r) {
  if (r.first == r.last) return "port " + std::to_string(r.first);
  return "portrange " + std::to_string(r.first) + "-" + std::to_string(r.last);
}

std::string protocol_text(const MatchTerm& t, bool& ethertype_said) {
  const std::uint8_t p = *t.protocol;
  if (p == proto_udp) return "udp";
  if (p == proto_tcp) return "tcp";
  if (p == proto_sctp) return "sctp";
  ethertype_said = t.ethertype.has_value();
  if (p == proto_icmp && t.ethertype == ether_ip) return "icmp";
  if (p == proto_icmp6 && t.ethertype == ether_ip6) return "icmp6";
  const std::string n = std::to_string(p);
  return t.ethertype ? ethertype_name(*t.ethertype) + " proto " + n : "proto " + n;
}

std::string term_text(const MatchTerm& t) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < t.vlan_tags && i < 2; ++i) {
    const auto& id = t.vlan_ids.at(i);
    words.push_back(id ? "vlan " + std::to_string(*id) : "vlan");
  }
  bool ethertype_said = t.src_net || t.dst_net || t.net;  // the address's family implies it
  std::string protocol = t.protocol ? protocol_text(t, ethertype_said) : "";
  if (t.ethertype && !ethertype_said) words.push_back(ethertype_name(*t.ethertype));
  if (t.src_net) words.push_back("src " + address_text(*t.src_net));
  if (t.dst_net) words.push_back("dst " + address_text(*t.dst_net));
  if (t.net) words.push_back(address_text(*t.net));
  std::vector<std::string> ports;
  if (t.src_port) ports.push_back("src " + port_text(*t.src_port));
  if (t.dst_port) ports.push_back("dst " + port_text(*t.dst_port));
  if (t.port) ports.push_back(port_text(*t.port));
  if (!protocol.empty() && !ports.empty() && carries_ports(*t.protocol)) {
    ports.front() = protocol + " " + ports.front();  // "udp dst port 53"
  } else if (!protocol.empty()) {
    words.push_back(protocol);
  }
  words.insert(words.end(), ports.begin(), ports.end());
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " and ") + w;
  return text;
}

// What the parser guarantees of a term, for terms built by hand (issue 41: a reversed range, a
// prefix longer than its family, a VLAN id past 4095 were taken as they came). Throws
// std::invalid_argument naming the alternative, the field and the rule.
class TermCheck {
 public:
  TermCheck(const MatchTerm& t, std::size_t index, std::size_t count)
      : t_(t),
        where_("match: alternative " + std::to_string(index + 1) + " of " + std::to_string(count) +
               ": ") {}

  void run() const {
    if (t_.vlan_tags > 2) fail("vlan_tags", std::to_string(t_.vlan_tags) + ": at most 2");
    for (std::size_t i = 0; i < 2; ++i) {
      const auto& id = t_.vlan_ids.at(i);
      if (!id) continue;
      const std::string field = i == 0 ? "vlan_ids[0]" : "vlan_ids[1]";
      if (i >= t_.vlan_tags) fail(field, "an id for a tag beyond vlan_tags");
      if (*id > 4095) fail(field, std::to_string(*id) + ": out of range 0-4095");
    }
    if (t_.ethertype) {
      const std::uint16_t e = *t_.ethertype;
      if (e < 0x0600) fail("ethertype", ethertype_name(e) + ": not an EtherType (below 0x0600)");
      if (e == 0x8100 || e == 0x88a8) {
        fail("ethertype", ethertype_name(e) + ": VLAN tags are matched with vlan_tags");
      }
      if (!is_ip(e) && t_.protocol) fail("protocol", "with " + ethertype_name(e) + " (not IP)");
    }
    port("src_port", t_.src_port);
    port("dst_port", t_.dst_port);
    port("port", t_.port);
    if (t_.port && (t_.src_port || t_.dst_port)) {
      fail("port", "either-direction port cannot be combined with src_port or dst_port");
    }
    prefix("src_net", t_.src_net);
    prefix("dst_net", t_.dst_net);
    prefix("net", t_.net);
    if (t_.net && (t_.src_net || t_.dst_net)) {
      fail("net", "either-direction net cannot be combined with src_net or dst_net");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& why) const {
    throw std::invalid_argument(where_ + field + ": " + why);
  }

  void port(const char* field, const std::optional<PortRange>& r) const {
    if (!r) return;
    const std::string range = std::to_string(r->first) + "-" + std::to_string(r->last);
    if (r->first > r->last) fail(field, range + ": the range is empty (first > last)");
    if (t_.ethertype && !is_ip(*t_.ethertype)) {
      fail(field, "with " + ethertype_name(*t_.ethertype) + " (not IP)");
    }
    if (t_.protocol && !carries_ports(*t_.protocol)) {
      fail(field, "with protocol " + std::to_string(*t_.protocol) + " (no ports)");
    }
  }

  // The family is the EtherType's, as parse sets it; host bits (and a v4 prefix's last 12
  // bytes) zero.
  void prefix(const char* field, const std::optional<IpPrefix>& p) const {
    if (!p) return;
    const std::uint32_t bits = p->v6 ? 128 : 32;
    if (p->length > bits) {
      fail(field, "length " + std::to_string(p->length) + " beyond " + std::to_string(bits));
    }
    for (std::uint32_t bit = p->length; bit < 128; ++bit) {
      if ((p->address.at(bit / 8) & (0x80U >> (bit % 8))) != 0) {
        fail(field, "address bits set beyond the prefix length");
      }
    }
    const std::uint16_t family = p->v6 ? ether_ip6 : ether_ip;
    if (t_.ethertype != family) {
      fail(field, std::string(p->v6 ? "an IPv6" : "an IPv4") + " prefix needs ethertype " +
                      ethertype_name(family));
    }
  }

  const MatchTerm& t_;
  std::string where_;
};

}  // namespace

Match::Match() : alternatives_{MatchTerm{}} {}

Match::Match(std::vector<MatchTerm> alternatives) : alternatives_(std::move(alternatives)) {
  if (alternatives_.empty()) throw std::invalid_argument("match: no alternative");
  for (std::size_t i = 0; i < alternatives_.size(); ++i) {
    TermCheck(alternatives_[i], i, alternatives_.size()).run();
  }
}

Match Match::parse(std::string_view expression) { return Match(Parser(expression).expression()); }

std::string Match::str() const {
  std::string text;
  for (const MatchTerm& t : alternatives_) text += (text.empty() ? "" : " or ") + term_text(t);
  return text;
}

}  // namespace afxdp
