// The embedded redirect program's steering tables, as src/steering.cpp writes them.
#pragma once

#include "xsk_steer_shared.h"

namespace afxdp::detail {

struct SteerTables {
  int entries = -1;  // hash: afxdp_steer_key -> rule slot (shapes that mask an address)
  int narrow = -1;   // hash: afxdp_steer_narrow_key -> rule slot (the other shapes)
  int hits = -1;     // per-CPU array: rule slot -> frames
  afxdp_steer_shapes* shapes = nullptr;  // the program's .bss, mapped
  afxdp_steer_filter* filter = nullptr;  // in .bss too
  afxdp_steer_ports* ports = nullptr;    // in .bss too
};

}  // namespace afxdp::detail
