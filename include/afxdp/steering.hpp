// The steering floor, whole: Match (which frames a rule takes) and Steering (the rules in the
// redirect program's maps, changed while traffic flows). docs/architecture.md draws the floors.
#pragma once

#include <afxdp/steering/match.hpp>
#include <afxdp/steering/steering.hpp>
