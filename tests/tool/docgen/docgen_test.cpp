// The man pages and the bash completion come from the tool's option definitions: every option of
// every subcommand (the demo's own, not its launcher's) is in its page's OPTIONS section and in
// its completion case, and every page has the sections a man page reader looks for.
#include "demo/demo.hpp"
#include "docgen/reference.hpp"
#include "subcommands.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

namespace docgen = afxdp::tool::docgen;

struct Apps {
  CLI::App app{"afxdp", "afxdp"};
  CLI::App demo_parent{"afxdp", "afxdp"};
  std::vector<afxdp::tool::Subcommand> subcommands = afxdp::tool::add_all_subcommands(app);
  afxdp::tool::Subcommand demo = afxdp::tool::add_demo_subcommand(demo_parent);
  std::vector<const CLI::App*> documented = docgen::documented_commands(app, demo_parent);
};

// roff writes a minus sign as \-: the page as a reader sees the names.
std::string unescaped(const std::string& page) {
  std::string text = page;
  text.erase(std::remove(text.begin(), text.end(), '\\'), text.end());
  return text;
}

std::string section(const std::string& page, const std::string& name) {
  const auto begin = page.find(".SH " + name + "\n");
  if (begin == std::string::npos) return {};
  const auto end = page.find(".SH ", begin + 1);
  return page.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

TEST(Docgen, EverySubcommandHasAPage) {
  Apps apps;
  std::vector<std::string> names;
  for (const auto* command : apps.documented) names.push_back(command->get_name());
  for (const auto& command : apps.subcommands) {
    EXPECT_NE(std::find(names.begin(), names.end(), command.app->get_name()), names.end())
        << command.app->get_name();
  }
  const std::string main_page = unescaped(docgen::main_man_page(apps.app, apps.documented, "1"));
  for (const auto& name : names) EXPECT_NE(main_page.find("afxdp-" + name), std::string::npos);
}

TEST(Docgen, EveryFlagOfEverySubcommandIsInItsPage) {
  Apps apps;
  for (const auto* command : apps.documented) {
    const std::string page = docgen::man_page(*command, "1");
    const std::string options = unescaped(section(page, "OPTIONS"));
    const std::vector<std::string> names = docgen::option_names(*command);
    EXPECT_GT(names.size(), 1U) << command->get_name();
    for (const std::string& name : names) {
      EXPECT_NE(options.find("fB" + name + "fR"), std::string::npos)
          << command->get_name() << ": " << name;
    }
  }
}

TEST(Docgen, TheDemoPageHasTheDemosOptions) {
  Apps apps;
  const auto demo = std::find_if(apps.documented.begin(), apps.documented.end(),
                                 [](const CLI::App* c) { return c->get_name() == "demo"; });
  ASSERT_NE(demo, apps.documented.end());
  const std::string page = unescaped(docgen::man_page(**demo, "1"));
  for (const char* name : {"--quick", "--reference-dpdk", "--benchmark"}) {
    EXPECT_NE(page.find(name), std::string::npos) << name;
  }
}

TEST(Docgen, EveryPageHasTheUsualSections) {
  Apps apps;
  for (const auto* command : apps.documented) {
    const std::string page = docgen::man_page(*command, "1");
    for (const char* name :
         {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES", "EXIT STATUS"}) {
      EXPECT_NE(section(page, name), "") << command->get_name() << ": " << name;
    }
    EXPECT_NE(unescaped(section(page, "EXAMPLES")).find("afxdp " + command->get_name()),
              std::string::npos)
        << command->get_name();
  }
}

TEST(Docgen, TheCompletionOffersEveryFlagOfEverySubcommand) {
  Apps apps;
  const std::string script = docgen::bash_completion(apps.app, apps.documented);
  for (const auto* command : apps.documented) {
    const auto begin = script.find("\n    " + command->get_name() + ")\n");
    ASSERT_NE(begin, std::string::npos) << command->get_name();
    const auto end = script.find("esac ;;", begin);
    const std::string cases = script.substr(begin, end - begin);
    const auto words = cases.find("*) kind=words");
    ASSERT_NE(words, std::string::npos) << command->get_name();
    std::string offered = cases.substr(words) + " ";
    std::replace(offered.begin(), offered.end(), '"', ' ');
    for (const std::string& name : docgen::option_names(*command)) {
      EXPECT_NE(offered.find(" " + name + " "), std::string::npos)
          << command->get_name() << ": " << name;
    }
  }
}

}  // namespace
