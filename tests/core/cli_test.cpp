// The command table (core/src/cli/commands.cpp): every command it holds has a help that shows
// its arguments and every option, and every command refuses an unknown option in the one form
// of a usage error. The tests iterate the table, so a new command is covered when it is added.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "cli/command.hpp"
#include "cli_support.hpp"

using dualgap::test::run_cli;

namespace {

bool shows(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The one command without an option of its own: `results pack SRC DST` takes positionals only.
const std::string kOnlyHelp = "results";

}  // namespace

TEST_CASE("cli: 'help CMD' and 'CMD --help' show each command's arguments and every option") {
  REQUIRE(dualgap::cli::commands().size() >= 10);
  for (const auto& c : dualgap::cli::commands()) {
    CAPTURE(c.name);
    const auto help = run_cli("help " + c.name);
    CHECK(help.code == 0);
    CHECK(shows(help.output, "usage: dualgap " + c.name + " "));
    CHECK(shows(help.output, c.summary));
    for (const auto& p : c.positionals) CHECK(shows(help.output, "  " + p.name));
    const auto options = dualgap::cli::option_names(c);
    CHECK(std::find(options.begin(), options.end(), "help") != options.end());
    // Every command has an option of its own beside --help, but for the one named here.
    const bool only_help = options.size() == 1 && options[0] == "help";
    CHECK(only_help == (c.name == kOnlyHelp));
    for (const auto& o : options) {
      CAPTURE(o);
      CHECK(shows(help.output, "--" + o + " "));
    }
    const auto dash = run_cli(c.name + " --help");
    CHECK(dash.code == 0);
    CHECK(dash.output == help.output);
  }
}

TEST_CASE("cli: the general usage lists every command of the table with its summary") {
  const auto r = run_cli("help");
  CHECK(r.code == 0);
  for (const auto& c : dualgap::cli::commands()) {
    CAPTURE(c.name);
    CHECK(shows(r.output, "  " + c.name + " "));
    CHECK(shows(r.output, c.summary));
  }
  CHECK(run_cli("").code == 2);  // no command: the usage, on stderr
  const auto unknown = run_cli("help runn");
  CHECK(unknown.code == 2);
  CHECK(shows(unknown.output, "unknown command 'runn'"));
}

TEST_CASE("cli: an unknown option of any command is exit 2, named, in the one form") {
  for (const auto& c : dualgap::cli::commands()) {
    CAPTURE(c.name);
    const auto r = run_cli(c.name + " --no-such-option");
    CHECK(r.code == 2);
    CHECK(shows(r.output, "dualgap " + c.name + ": unknown option '--no-such-option' (see 'dualgap help " +
                                 c.name + "')"));
  }
}
