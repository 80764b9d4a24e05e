// The kernel-resources floor, whole: one RAII owner per kernel object (the UMEM, the socket, the
// redirect program and its bpf_link) and what the control path asks of an interface and of this
// process before it binds. Sits on the rings floor. docs/architecture.md draws the floors.
#pragma once

#include <afxdp/xsk/interface.hpp>
#include <afxdp/xsk/privilege.hpp>
#include <afxdp/xsk/socket.hpp>
#include <afxdp/xsk/statistics.hpp>
#include <afxdp/xsk/umem.hpp>
#include <afxdp/xsk/unique_fd.hpp>
#include <afxdp/xsk/xdp_action.hpp>
#include <afxdp/xsk/xdp_link.hpp>
#include <afxdp/xsk/xsk_program.hpp>
