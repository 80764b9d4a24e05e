// SPDX-License-Identifier: GPL-2.0
// Policy: a frame goes to the AF_XDP socket bound to the rx queue it arrived on; a queue without
// a socket gets the configured fallback action (bpf_redirect_map returns the low bits of its
// flags argument when the map has no entry for the key).
//
// Steering: once a rule exists (shapes.on), only frames that match one go to the socket, the
// rest XDP_PASS to the kernel. The headers are parsed once into a tuple. A rule of the commonest
// shape (protocol + destination port) is a cell of an array indexed by the port: one load. Each
// other shape in use (at most AFXDP_STEER_SHAPES) that the frame's fixed fields do not rule out
// costs one hash lookup of (tag, tuple & mask), whatever the number of rules. See docs/api.md
// "Steering".
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xsk_steer_shared.h"

struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __uint(max_entries, 64);  // resized to the interface's queue count before load
  __type(key, __u32);
  __type(value, __u32);
} xsks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, AFXDP_STEER_ENTRIES);
  __type(key, struct afxdp_steer_key);
  __type(value, __u32);  // rule slot
} steer_entries SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, AFXDP_STEER_ENTRIES);
  __type(key, struct afxdp_steer_narrow_key);
  __type(value, __u32);  // rule slot
} steer_narrow SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, AFXDP_STEER_RULES);
  __type(key, __u32);
  __type(value, __u64);
} steer_hits SEC(".maps");

const volatile __u32 fallback_action = XDP_PASS;
struct afxdp_steer_shapes steer_shapes;
struct afxdp_steer_filter steer_filter;
struct afxdp_steer_ports steer_ports;

#define READ_ONCE_U32(x) (*(volatile __u32 *)&(x))
#define READ_ONCE_U16(x) (*(volatile __u16 *)&(x))

struct vlan_tag {
  __be16 tci;
  __be16 proto;
};

// Bounds for the verifier and for the linear part of a frags packet: headers past it are not
// read, so a rule that needs them does not match.
#define MAX_OFFSET 1024U
#define MAX_EXT_HEADERS 6

// IPv4's more-fragments flag and fragment offset: either set, the frame is one fragment of a
// datagram. No fragment matches a rule on ports (docs/api.md "Fragments").
#define IP_FRAGMENT_BITS 0x3fff

// The `len` bytes at `off`, or null past the end (or past MAX_OFFSET).
static __always_inline void *at(void *data, void *end, __u32 off, __u32 len) {
  if (off > MAX_OFFSET) return 0;
  void *p = data + off;
  if (p + len > end) return 0;
  return p;
}

static __always_inline void read_ports(void *data, void *end, __u32 off,
                                       struct afxdp_steer_tuple *t) {
  if (t->proto != IPPROTO_TCP && t->proto != IPPROTO_UDP && t->proto != IPPROTO_SCTP) return;
  __be16 *ports = at(data, end, off, 4);
  if (!ports) return;
  t->sport = ports[0];
  t->dport = ports[1];
  t->flags |= AFXDP_STEER_PORTS;
}

static __always_inline void parse_ipv4(void *data, void *end, __u32 off,
                                       struct afxdp_steer_tuple *t) {
  __u8 *ip = at(data, end, off, 20);
  if (!ip || (ip[0] >> 4) != 4) return;  // as net::parse: another version is no IPv4 header
  __u32 ihl = (ip[0] & 0x0f) * 4U;
  if (ihl < 20) return;
  t->flags |= AFXDP_STEER_IP;
  t->proto = ip[9];
  // A fragment (more to come, or an offset): no ports, even in the first one, which has them,
  // so that a port rule takes none of a datagram's fragments and the kernel gets them all.
  if (*(__be16 *)(ip + 6) & bpf_htons(IP_FRAGMENT_BITS)) return;
  read_ports(data, end, off + ihl, t);
}

static __always_inline void parse_ipv6(void *data, void *end, __u32 off,
                                       struct afxdp_steer_tuple *t) {
  __u8 *ip = at(data, end, off, 40);
  if (!ip || (ip[0] >> 4) != 6) return;  // as net::parse: another version is no IPv6 header
  t->flags |= AFXDP_STEER_IP;
  __u8 next = ip[6];
  off += 40;
  // AH ends the walk, as in net::parse: the protocol is AH's, no ports (a port rule leaves the
  // frame to the kernel rather than hand a handler a frame in which it finds no UDP or TCP).
  for (int i = 0; i < MAX_EXT_HEADERS; i++) {
    if (next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING && next != IPPROTO_DSTOPTS &&
        next != IPPROTO_FRAGMENT)
      break;
    __u8 *ext = at(data, end, off, 8);
    if (!ext) {
      next = IPPROTO_NONE;  // the upper protocol is past what we can read
      break;
    }
    __u8 this = next;
    next = ext[0];
    if (this == IPPROTO_FRAGMENT) {
      // A fragment, first or later: no ports (as IPv4), and the protocol is the fragment
      // header's next header, which every fragment of the datagram carries alike (the headers
      // after it are in the first fragment only).
      t->proto = next;
      return;
    }
    off += (ext[1] + 1U) * 8U;
  }
  t->proto = next;
  read_ports(data, end, off, t);
}

// The tuple's head (the 12 bytes before the addresses, zeroed by the caller); returns the offset
// of the IP header (the addresses are read only when a shape needs them: read_addresses).
// A function of its own: only tagged frames and IPv6 with extension headers come here.
static __noinline __u32 parse(struct xdp_md *ctx, struct afxdp_steer_tuple *t) {
  void *data = (void *)(long)ctx->data;
  void *end = (void *)(long)ctx->data_end;
  if (data + sizeof(struct ethhdr) > end) return 0;
  __be16 proto = ((struct ethhdr *)data)->h_proto;
  __u32 off = sizeof(struct ethhdr);
  for (int i = 0; i < 2; i++) {
    if (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD)) break;
    struct vlan_tag *tag = at(data, end, off, sizeof(struct vlan_tag));
    if (!tag) return 0;
    __be16 id = tag->tci & bpf_htons(0x0fff);
    if (i == 0) {
      t->vlan_outer = id;
      t->flags |= AFXDP_STEER_TAG1;
    } else {
      t->vlan_inner = id;
      t->flags |= AFXDP_STEER_TAG2;
    }
    proto = tag->proto;
    off += sizeof(struct vlan_tag);
  }
  t->ethertype = proto;
  if (proto == bpf_htons(ETH_P_IP))
    parse_ipv4(data, end, off, t);
  else if (proto == bpf_htons(ETH_P_IPV6))
    parse_ipv6(data, end, off, t);
  return off;
}

static __always_inline void read_addresses(struct xdp_md *ctx, __u32 off,
                                           struct afxdp_steer_tuple *t) {
  void *data = (void *)(long)ctx->data;
  void *end = (void *)(long)ctx->data_end;
  __builtin_memset(t->src, 0, sizeof(t->src) + sizeof(t->dst));
  if (!(t->flags & AFXDP_STEER_IP)) return;  // no IP header of its version: no addresses
  if (t->ethertype == bpf_htons(ETH_P_IP)) {
    __u8 *ip = at(data, end, off, 20);
    if (!ip || (ip[0] & 0x0f) < 5) return;  // as parse_ipv4: no header, no addresses
    __builtin_memcpy(t->src, ip + 12, 4);
    __builtin_memcpy(t->dst, ip + 16, 4);
  } else if (t->ethertype == bpf_htons(ETH_P_IPV6)) {
    __u8 *ip = at(data, end, off, 40);
    if (!ip) return;
    __builtin_memcpy(t->src, ip + 8, 16);
    __builtin_memcpy(t->dst, ip + 24, 16);
  }
}

// The fast path: slot + 1 of the port rule that takes the frame, or 0.
static __always_inline __u32 port_rule(__be16 ethertype, __u8 proto, __u8 flags, __be16 dport) {
  if (flags != (AFXDP_STEER_PORTS | AFXDP_STEER_IP)) return 0;           // tagged, or no ports
  __u32 cell = proto == IPPROTO_UDP ? 0 : proto == IPPROTO_TCP ? 2 : 4;  // or SCTP
  if (ethertype == bpf_htons(ETH_P_IPV6)) cell += 1;
  __u32 i = (cell << 16) | bpf_ntohs(dport);
  if (i >= (AFXDP_STEER_PORT_CELLS << 16)) return 0;
  return READ_ONCE_U16(steer_ports.slots[i]);
}

// The shapes the frame's fixed fields do not rule out.
static __always_inline __u32 candidates(__be16 ethertype, __u8 proto, __u8 flags) {
  __u32 e = ethertype;
  return READ_ONCE_U32(steer_filter.by_flags[flags & (AFXDP_STEER_FLAGS - 1)]) &
         READ_ONCE_U32(steer_filter.by_proto[proto]) &
         READ_ONCE_U32(steer_filter.by_ethertype[AFXDP_STEER_ETHER_FOLD(e)]);
}

// The slot of the first shape's rule the frame matches, or -1.
static __noinline long match_shapes(struct xdp_md *ctx, struct afxdp_steer_tuple *tuple, __u32 l3,
                                    __u32 bits) {
  struct afxdp_steer_key key = {};
  struct afxdp_steer_narrow_key narrow = {};
  read_addresses(ctx, l3, tuple);
  __u32 count = READ_ONCE_U32(steer_shapes.count);
  for (__u32 i = 0; i < AFXDP_STEER_SHAPES; i++) {
    if (i >= count || (bits >> i) == 0) break;
    if (!(bits & (1U << i))) continue;
    __u32 tag = READ_ONCE_U32(steer_shapes.tags[i]);
    if (tag == 0) continue;
    __u32 *mask = (__u32 *)&steer_shapes.masks[tag & AFXDP_STEER_SHAPE_BITS];
    __u32 *in = (__u32 *)tuple;
    __u32 *slot;
    if (tag & AFXDP_STEER_WIDE) {
      __u32 *out = (__u32 *)&key.tuple;
      for (int w = 0; w < sizeof(*tuple) / 4; w++) out[w] = in[w] & mask[w];
      key.tag = tag;
      slot = bpf_map_lookup_elem(&steer_entries, &key);
    } else {
      __u32 *out = (__u32 *)narrow.head;
      for (int w = 0; w < AFXDP_STEER_NARROW_SIZE / 4; w++) out[w] = in[w] & mask[w];
      narrow.tag = tag;
      slot = bpf_map_lookup_elem(&steer_narrow, &narrow);
    }
    if (slot) return *slot;
  }
  return -1;
}

static __always_inline int is_ipv6_extension(__u8 next) {
  return next == IPPROTO_HOPOPTS || next == IPPROTO_ROUTING || next == IPPROTO_DSTOPTS ||
         next == IPPROTO_FRAGMENT;
}

// match() for tagged frames and IPv6 with extension headers: the whole parse, in a function
// of its own so that the common case's registers stay its own.
static __noinline long match_parsed(struct xdp_md *ctx) {
  struct afxdp_steer_tuple t;
  __builtin_memset(&t, 0, AFXDP_STEER_NARROW_SIZE);
  __u32 l3 = parse(ctx, &t);
  __u32 fast = port_rule(t.ethertype, t.proto, t.flags, t.dport);
  if (fast) return fast - 1;
  __u32 bits = candidates(t.ethertype, t.proto, t.flags);
  if (!bits) return -1;
  return match_shapes(ctx, &t, l3, bits);
}

// The slot of the first rule the frame matches, or -1: the port table, then the shapes. The
// commonest frames (untagged; IPv4 without options, IPv6 without extension headers; at least
// 38 bytes) are parsed here in straight-line code, as parse() would, and reach the stack only
// when a shape must be hashed; the others go to match_parsed.
static __always_inline long match(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *end = (void *)(long)ctx->data_end;
  if (data + ETH_HLEN + 20 + 4 > end) return match_parsed(ctx);
  __be16 ethertype = *(__be16 *)(data + 12);
  __u8 *ip = data + ETH_HLEN;
  __u8 proto = 0, flags = 0;
  __be16 *ports = 0;
  if (ethertype == bpf_htons(ETH_P_IP)) {
    if (ip[0] != 0x45) return match_parsed(ctx);  // options (or not version 4)
    flags = AFXDP_STEER_IP;
    proto = ip[9];
    if (!(*(__be16 *)(ip + 6) & bpf_htons(IP_FRAGMENT_BITS))) ports = (__be16 *)(ip + 20);
  } else if (ethertype == bpf_htons(ETH_P_IPV6)) {
    if ((void *)(ip + 40 + 4) > end || (ip[0] >> 4) != 6) return match_parsed(ctx);
    flags = AFXDP_STEER_IP;
    proto = ip[6];
    ports = (__be16 *)(ip + 40);
  } else if (ethertype == bpf_htons(ETH_P_8021Q) || ethertype == bpf_htons(ETH_P_8021AD)) {
    return match_parsed(ctx);
  }
  __be16 sport = 0, dport = 0;
  if (ports) {
    // The port table's row of this protocol and family: cell (UDP 0, TCP 1, SCTP 2) * 2 + IPv6.
    __u16 *row = steer_ports.slots;
    if (ethertype == bpf_htons(ETH_P_IPV6)) row += 1U << 16;
    if (proto == IPPROTO_UDP)
      ;
    else if (proto == IPPROTO_TCP)
      row += 2U << 16;
    else if (proto == IPPROTO_SCTP)
      row += 4U << 16;
    else if (ethertype == bpf_htons(ETH_P_IPV6) && is_ipv6_extension(proto))
      return match_parsed(ctx);
    else
      goto no_ports;
    sport = ports[0];
    dport = ports[1];
    flags |= AFXDP_STEER_PORTS;
    __u32 fast = READ_ONCE_U16(row[bpf_ntohs(dport) & 0xffff]);
    if (fast) return fast - 1;
  }
no_ports:
  if (!READ_ONCE_U32(steer_shapes.count)) return -1;  // port rules only: no shape to hash
  __u32 bits = candidates(ethertype, proto, flags);
  if (!bits) return -1;
  struct afxdp_steer_tuple t = {
      .ethertype = ethertype, .sport = sport, .dport = dport, .proto = proto, .flags = flags};
  return match_shapes(ctx, &t, ETH_HLEN, bits);
}

static __always_inline int steer(struct xdp_md *ctx) {
  if (READ_ONCE_U32(steer_shapes.on)) {
    long slot = match(ctx);
    if (slot < 0) return XDP_PASS;
    __u32 index = slot;
    __u64 *hits = bpf_map_lookup_elem(&steer_hits, &index);
    if (hits) *hits += 1;
  }
  return bpf_redirect_map(&xsks, ctx->rx_queue_index, fallback_action);
}

SEC("xdp")
int xsk_redirect(struct xdp_md *ctx) { return steer(ctx); }

// The same policy for multi-buffer sockets: "xdp.frags" loads it with BPF_F_XDP_HAS_FRAGS, so
// the driver hands it packets larger than a page (MTU 9000) instead of refusing to attach it,
// and a socket bound with XDP_USE_SG receives them as descriptor chains. Only one of the two
// programs is loaded (XskProgramConfig::frags). The headers are parsed in the linear part.
SEC("xdp.frags")
int xsk_redirect_frags(struct xdp_md *ctx) { return steer(ctx); }

char LICENSE[] SEC("license") = "GPL";
