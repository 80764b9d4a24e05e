// The tool's JSON output is written by hand, one object per line; every string in it goes
// through json_string.
#pragma once

#include <string>

namespace afxdp::tool {

// `text` as a JSON string, quotes included: interface names and error messages come from the
// command line and the kernel, so quotes, backslashes and control characters are escaped.
std::string json_string(const std::string& text);

}  // namespace afxdp::tool
