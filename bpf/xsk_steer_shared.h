/* The steering tables that xsk_redirect.bpf.c shares with the library (src/steering.cpp). */
#ifndef AFXDP_BPF_XSK_STEER_SHARED_H
#define AFXDP_BPF_XSK_STEER_SHARED_H

#include <linux/types.h>

/* What the program parses out of a frame, every field in network byte order as on the wire.
 * A rule entry is (shape tag, tuple & shape mask): so one hash lookup per shape in use. */
struct afxdp_steer_tuple {
  __u16 ethertype;  /* after the VLAN tags */
  __u16 vlan_outer; /* VLAN id (TCI & 0x0fff) of the first tag */
  __u16 vlan_inner; /* of the second tag */
  __u16 sport;      /* TCP, UDP, SCTP; 0 when absent (see AFXDP_STEER_PORTS) */
  __u16 dport;
  __u8 proto; /* IPv4 protocol or IPv6's last next header (a fragment's: its fragment header's); 0
                 without AFXDP_STEER_IP */
  __u8 flags; /* AFXDP_STEER_* */
  /* The addresses last: a shape that masks none of them is looked up on the 12 bytes above
   * (AFXDP_STEER_NARROW_SIZE) in a map of its own, hashing a third of the bytes. */
  __u8 src[16]; /* IPv4: the first 4 bytes */
  __u8 dst[16];
};

#define AFXDP_STEER_NARROW_SIZE 12U

#define AFXDP_STEER_PORTS 0x1U /* sport and dport were read (no fragment, in the linear part) */
#define AFXDP_STEER_TAG1 0x2U  /* one VLAN tag */
#define AFXDP_STEER_TAG2 0x4U  /* a second VLAN tag */
/* An IP header of its EtherType's version (4 or 6) was read: proto and the addresses are its.
 * Without it proto is 0 and means nothing, so a rule on the protocol or an address masks it: a
 * non-IP frame (ARP, LLDP) or a 0x0800 frame whose version is not 4 never matches `proto 0`. */
#define AFXDP_STEER_IP 0x8U
#define AFXDP_STEER_FLAGS 16U /* the flag values */

struct afxdp_steer_key {
  __u32 tag; /* the shape's tag: (generation << 6) | AFXDP_STEER_WIDE? | shape slot, never 0 */
  struct afxdp_steer_tuple tuple;
};

/* The key of a shape without addresses: the tag and the tuple's first 12 bytes. */
struct afxdp_steer_narrow_key {
  __u32 tag;
  __u8 head[AFXDP_STEER_NARROW_SIZE];
};

#define AFXDP_STEER_SHAPES 32U     /* distinct masks in use at once: the per-frame bound */
#define AFXDP_STEER_SHAPE_BITS 31U /* tag & this = the shape's slot */
#define AFXDP_STEER_WIDE 32U       /* in a tag: the shape masks addresses (steer_entries) */
#define AFXDP_STEER_RULES 4096U    /* rule slots (hit counters) */
#define AFXDP_STEER_ENTRIES 16384U /* (shape, value) entries over all rules */

/* The program's .bss, written by the library through the skeleton's mapping. A shape is
 * published by storing its tag last and withdrawn by storing 0 first; the program reads the
 * tag, then the mask at the slot the tag names (an address dependency). */
struct afxdp_steer_shapes {
  __u32 on;    /* 0: no rule was ever added, every frame goes to the socket */
  __u32 count; /* slots [0, count) may be in use */
  __u32 tags[AFXDP_STEER_SHAPES];
  struct afxdp_steer_tuple masks[AFXDP_STEER_SHAPES];
};

/* Which shapes can match a frame, by the frame's fixed fields: a shape's bit is set in
 * by_flags[flags], by_ethertype[fold(ethertype)] and by_proto[proto] when one of its entries
 * could match a frame with that value (always, for a field the shape does not mask). The
 * program hashes only the shapes set in all three: none, for most frames that pass. Bits are
 * added before a shape's entries and cleared after they are gone, so a word always covers the
 * entries in the maps. */
#define AFXDP_STEER_ETHER_FOLD(e) ((((e) >> 8) ^ (e)) & 0xffU) /* e as on the wire */
struct afxdp_steer_filter {
  __u32 by_flags[AFXDP_STEER_FLAGS]; /* AFXDP_STEER_PORTS | TAG1 | TAG2 | IP */
  __u32 by_ethertype[256];
  __u32 by_proto[256];
};

/* The fast path: rules that are only (IPv4, IPv6 or either) + UDP, TCP or SCTP + destination
 * port or range, untagged, are not shapes but cells of a table indexed by destination port:
 * slot + 1 of the rule that takes the frame, 0 for none. One load per frame, no hash. */
#define AFXDP_STEER_PORT_CELLS 6U /* (UDP, TCP, SCTP) x (IPv4, IPv6): cell = proto * 2 + v6 */
struct afxdp_steer_ports {
  __u16 slots[AFXDP_STEER_PORT_CELLS << 16]; /* [(cell << 16) | destination port] */
};

#endif
