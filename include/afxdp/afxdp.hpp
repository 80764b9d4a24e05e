// All of afxdp's public API in one include: the data path (Port, Queue, Frame and what a handler
// sees; run_per_queue) over every floor below it. Including only the floor a file needs builds
// faster; docs/architecture.md draws the floors.
#pragma once

#include <afxdp/cpu.hpp>
#include <afxdp/error.hpp>
#include <afxdp/frame.hpp>
#include <afxdp/frame_ref.hpp>
#include <afxdp/net.hpp>
#include <afxdp/packet.hpp>
#include <afxdp/port.hpp>
#include <afxdp/queue.hpp>
#include <afxdp/queue_stats.hpp>
#include <afxdp/rings.hpp>
#include <afxdp/run.hpp>
#include <afxdp/signal_stop.hpp>
#include <afxdp/steering.hpp>
#include <afxdp/version.hpp>
#include <afxdp/xsk.hpp>
