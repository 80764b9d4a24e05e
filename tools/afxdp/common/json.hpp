// The tool's JSON output is written by hand, one object per line; every string in it goes
// through json_string. The demo reads the tools' lines back with json_number, and the tests too.
#pragma once

#include <string>

namespace afxdp::tool {

// `text` as a JSON string, quotes included: interface names and error messages come from the
// command line and the kernel, so quotes, backslashes and control characters are escaped.
std::string json_string(const std::string& text);

// The value of "key" in one of our own --json lines, as written: a number, true, false or null
// (not a string, an object or an array); "" when the key is missing.
std::string json_value(const std::string& line, const std::string& key);
// json_value as a number; false when the key is missing or its value is no number.
bool json_number(const std::string& line, const std::string& key, double& value);

}  // namespace afxdp::tool
