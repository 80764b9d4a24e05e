// --user and --group: whom the tool becomes once set up (unit: resolving names and numbers).
#include <xsk/privileges.hpp>

#include "expect_throw.hpp"
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using afxdp::tool::resolve_run_as;

// (uid_t)-1 and (gid_t)-1 mean "leave unchanged" to setresuid/setresgid: as a target they kept
// root's ids and the run went on as root.
TEST(RunAs, TheUnchangedIdIsRefused) {
  EXPECT_THROW_WITH((void)resolve_run_as("4294967295", ""), std::invalid_argument, "--user");
  EXPECT_THROW((void)resolve_run_as("", "4294967295"), std::invalid_argument);
  EXPECT_THROW((void)resolve_run_as("1234", "4294967295"), std::invalid_argument);
}

TEST(RunAs, NumbersAreTaken) {
  const afxdp::tool::RunAs who = resolve_run_as("1234", "4321");
  EXPECT_EQ(who.uid, 1234U);
  EXPECT_EQ(who.gid, 4321U);
  EXPECT_EQ(resolve_run_as("4294967294", "").uid, 4294967294U);
}

// --user root (or 0) keeps uid 0: said in a line (issue 41: it ran as root without a word).
TEST(RunAs, RootIsSaid) {
  const std::string note = afxdp::tool::root_note("0", resolve_run_as("0", ""));
  EXPECT_NE(note.find("uid 0"), std::string::npos) << note;
  EXPECT_NE(note.find("--user 0"), std::string::npos) << note;
  EXPECT_NE(afxdp::tool::root_note("root", {0, 0}), "");
  EXPECT_EQ(afxdp::tool::root_note("1234", resolve_run_as("1234", "")), "");
  EXPECT_EQ(afxdp::tool::root_note("", {0, 0}), "") << "no --user: nobody is the default";
}

}  // namespace
