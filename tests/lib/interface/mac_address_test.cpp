// MacAddress's text form: parse takes exactly "aa:bb:cc:dd:ee:ff" (either case) and format gives
// it back in lower case; anything else is refused, not half-read.
#include <afxdp/net/mac_address.hpp>
#include <gtest/gtest.h>

#include <string>

namespace {

TEST(MacAddress, ParsesSixHexPairs) {
  const auto mac = afxdp::parse_mac_address("02:1a:FF:00:9b:e0");
  ASSERT_TRUE(mac.has_value());
  EXPECT_EQ(*mac, (afxdp::MacAddress{0x02, 0x1a, 0xff, 0x00, 0x9b, 0xe0}));
}

TEST(MacAddress, FormatsLowerCaseAndRoundTrips) {
  const afxdp::MacAddress mac{0x02, 0x1a, 0xff, 0x00, 0x9b, 0xe0};
  EXPECT_EQ(afxdp::format_mac_address(mac), "02:1a:ff:00:9b:e0");
  EXPECT_EQ(afxdp::format_mac_address(afxdp::MacAddress{}), "00:00:00:00:00:00");
  EXPECT_EQ(afxdp::parse_mac_address(afxdp::format_mac_address(mac)), mac);
  const afxdp::MacAddress broadcast{0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(afxdp::parse_mac_address("FF:ff:FF:ff:FF:ff"), broadcast);
}

TEST(MacAddress, RefusesAnythingElse) {
  for (const char* text :
       {"", "02:1a:ff:00:9b", "02:1a:ff:00:9b:e0:", "02:1a:ff:00:9b:e0:11", "02-1a-ff-00-9b-e0",
        "021a.ff00.9be0", "02:1a:ff:00:9b:eg", "2:1a:ff:00:9b:e0:", " 02:1a:ff:00:9b:e0",
        "02:1a:ff:00:9b:e0 ", "+2:1a:ff:00:9b:e0", "02:1a:ff:00:9b:-1", "02:1a:ff::00:9b:e0",
        "0x:1a:ff:00:9b:e0"}) {
    EXPECT_FALSE(afxdp::parse_mac_address(text).has_value()) << '"' << text << '"';
  }
}

}  // namespace
