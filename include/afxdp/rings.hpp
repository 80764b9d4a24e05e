// The rings floor, whole: the kernel's four ring verbs (ring.hpp), the frames nobody holds
// (frame_pool.hpp) and the tx descriptor check (tx_descriptor.hpp). Header-only, no syscalls, no
// libbpf: the afxdp::rings target. docs/architecture.md draws the floors.
#pragma once

#include <afxdp/rings/cache_line.hpp>
#include <afxdp/rings/frame_pool.hpp>
#include <afxdp/rings/ring.hpp>
#include <afxdp/rings/tx_descriptor.hpp>
