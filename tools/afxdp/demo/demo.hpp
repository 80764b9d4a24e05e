// `afxdp demo`: the whole toolkit on a veth pair of its own. It makes a private network namespace
// and a veth pair, drives traffic with `afxdp gen`, measures what the kernel alone receives (an
// XDP_DROP program, the `xdp-drop` row), runs rxdrop, txpush and l2fwd in native and
// skb mode, with and without poll(), on 1 core and on 2 cores, prints a table in Mpps, and leaves
// nothing behind (the namespace dies with the process, on every exit path).
#pragma once

#include "demo/demo_matrix.hpp"
#include "subcommands.hpp"

namespace afxdp::tool {

Subcommand add_demo_subcommand(CLI::App& app);

}  // namespace afxdp::tool
