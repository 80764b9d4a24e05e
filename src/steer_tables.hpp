// The embedded redirect program's steering tables, as src/steering.cpp writes them. XskProgram
// makes them (detail::steer_tables) and Steering writes them (detail::add_program), and neither
// class knows the other: Port::open hands each embedded program's tables to its Steering. The
// tables point into the program, which must outlive the Steering's use of them.
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
