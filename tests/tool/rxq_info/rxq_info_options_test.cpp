// rxq-info's option and action-name parsing, without a kernel.
#include <rxq_info/rxq_info.hpp>

#include "expect_throw.hpp"
#include <gtest/gtest.h>

#include <algorithm>

namespace {

using afxdp::parse_xdp_action;
using afxdp::XdpAction;
using afxdp::tool::plan_rxq_info;
using afxdp::tool::Touch;

TEST(RxqInfoAction, NamesInAnyCase) {
  EXPECT_EQ(parse_xdp_action("DROP"), XdpAction::drop);
  EXPECT_EQ(parse_xdp_action("drop"), XdpAction::drop);
  EXPECT_EQ(parse_xdp_action("Pass"), XdpAction::pass);
  EXPECT_EQ(parse_xdp_action("tx"), XdpAction::tx);
  EXPECT_EQ(parse_xdp_action("XDP_REDIRECT"), XdpAction::redirect);
  EXPECT_EQ(parse_xdp_action("xdp_aborted"), XdpAction::aborted);
  for (const char* bad : {"", "DROPS", "XDP_", "forward", "xdp-drop", "4"}) {
    EXPECT_FALSE(parse_xdp_action(bad)) << bad;
  }
  EXPECT_STREQ(afxdp::xdp_action_name(XdpAction::tx), "XDP_TX");
}

struct Parsed {
  CLI::App app{"test"};
  afxdp::tool::RxqInfoOptions options;
  Parsed() { afxdp::tool::add_rxq_info_options(app, options); }
  void parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes them last first
    app.parse(args);
  }
};

// PASS, as the kernel's xdp_rxq_info sample: `rxq-info -i eth0` must not cut the host off, so
// DROP is asked for.
TEST(RxqInfoOptions, DefaultsArePassNoTouchNative) {
  Parsed p;
  p.parse({"rxq-info", "-i", "veth0"});
  EXPECT_EQ(p.options.interface, "veth0");
  EXPECT_FALSE(p.options.skb_mode);
  const auto plan = plan_rxq_info(p.options);
  EXPECT_EQ(plan.action, XdpAction::pass);
  EXPECT_EQ(plan.touch, Touch::none);
  EXPECT_DOUBLE_EQ(p.options.interval, 2.0);
}

TEST(RxqInfoOptions, ValuesArrive) {
  Parsed p;
  p.parse({"rxq-info", "-i", "v", "-S", "-a", "redirect", "--redirect-to", "w", "--read", "-s",
           "0.5", "-d", "3", "--json"});
  EXPECT_TRUE(p.options.skb_mode);
  EXPECT_TRUE(p.options.json);
  EXPECT_DOUBLE_EQ(p.options.interval, 0.5);
  EXPECT_DOUBLE_EQ(p.options.duration, 3.0);
  const auto plan = plan_rxq_info(p.options);
  EXPECT_EQ(plan.action, XdpAction::redirect);
  EXPECT_EQ(plan.touch, Touch::read);
}

TEST(RxqInfoOptions, TxAlwaysSwapsMacs) {
  Parsed p;
  p.parse({"rxq-info", "-i", "v", "-a", "TX", "--no-touch"});
  EXPECT_EQ(plan_rxq_info(p.options).touch, Touch::swapmac);
  Parsed q;
  q.parse({"rxq-info", "-i", "v", "--swapmac"});
  EXPECT_EQ(plan_rxq_info(q.options).action, XdpAction::pass);
  EXPECT_EQ(plan_rxq_info(q.options).touch, Touch::swapmac);
}

TEST(RxqInfoOptions, RefusesBadCombinations) {
  const std::vector<std::vector<std::string>> plan_errors = {
      {"rxq-info", "-i", "v", "-a", "REDIRECT"},      // no target
      {"rxq-info", "-i", "v", "--redirect-to", "w"},  // target without REDIRECT
      {"rxq-info", "-i", "v", "--read", "--swapmac"},
      {"rxq-info", "-i", "v", "--no-touch", "--read"},
  };
  for (const auto& args : plan_errors) {
    Parsed p;
    p.parse(args);
    EXPECT_THROW(plan_rxq_info(p.options), std::invalid_argument) << args.back();
  }
  const std::vector<std::vector<std::string>> parse_errors = {
      {"rxq-info"},
      {"rxq-info", "-i", "v", "-a", "bogus"},
      {"rxq-info", "-i", "v", "-s", "0"},
      {"rxq-info", "-i", "v", "-d", "-1"},
      {"rxq-info", "-i", "v", "--redirect-to"},
  };
  for (const auto& args : parse_errors) {
    Parsed p;
    EXPECT_THROW(p.parse(args), CLI::ParseError) << args.back();
  }
}

// Both time options take finite seconds in the range --help states: -s inf once printed nothing
// and overflowed the conversion to nanoseconds, -s 1e-10 reported in a tight loop.
TEST(RxqInfoOptions, TimeOptionsAreFiniteAndBounded) {
  for (const char* option : {"-s", "-d"}) {
    for (const char* value : {"inf", "infinity", "nan", "1e10", "1e300", "31536001"}) {
      Parsed p;
      EXPECT_THROW_WITH(p.parse({"rxq-info", "-i", "v", option, value}), CLI::ParseError, value)
          << option;
    }
  }
  for (const char* value : {"1e-10", "0.009", "86401"}) {
    Parsed p;
    EXPECT_THROW(p.parse({"rxq-info", "-i", "v", "-s", value}), CLI::ParseError) << value;
  }
  for (const std::vector<std::string>& good : {std::vector<std::string>{"-s", "0.01"},
                                               {"-s", "86400"},
                                               {"-d", "0"},
                                               {"-d", "1e-9"},
                                               {"-d", "31536000"}}) {
    Parsed p;
    std::vector<std::string> args{"rxq-info", "-i", "v"};
    args.insert(args.end(), good.begin(), good.end());
    EXPECT_NO_THROW(p.parse(args)) << good[0] << " " << good[1];
  }
}

}  // namespace
