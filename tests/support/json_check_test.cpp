// The tests' JSON grammar check refuses what python3's json module (which it replaced) refuses.
#include "json_check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using afxdp::test::is_json;

TEST(JsonCheck, TakesTheToolsLines) {
  EXPECT_TRUE(is_json(R"({"summary":true,"rx_pps":1234.5,"tx_pps":0,"if":"v\"a\u0001"})"));
  EXPECT_TRUE(is_json(R"({"steering":[{"rule":"udp dst port 53","hits":-2e+3}],"x":null})"));
  EXPECT_TRUE(is_json(" [ ] "));
}

TEST(JsonCheck, RefusesWhatIsNoJson) {
  for (const std::string bad :
       {"", "{", R"({"a":1,})", R"({"a" 1})", R"({a:1})", "{\"a\":\"tab\there\"}", R"({"a":"\x"})",
        R"({"a":"\u12"})", R"({"a":01})", R"({"a":1.})", R"({"a":.5})", R"({"a":1e})",
        R"({"a":nan})", R"({"a":inf})", R"({"a":tru})", R"({"a":1} x)", R"({"a":"open)"}) {
    EXPECT_FALSE(is_json(bad)) << bad;
  }
}

}  // namespace
