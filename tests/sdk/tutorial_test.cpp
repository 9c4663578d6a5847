// Runs every command of docs/writing-an-oracle.md, so that the tutorial stays true.
//
// Shell blocks of the tutorial carry a tag: ```sh {test} blocks run as written, in order, in
// one bash process (set -eu -o pipefail) in a fresh folder; ```sh {test=env} sets the variables
// the harness sets itself (DUALGAP_SRC, DUALGAP_BUILD, DUALGAP_PREFIX: this source tree, this
// build tree, a temporary prefix); ```sh {test=prebuilt} is the configure-and-build of dualgap,
// already done for the tree under test. An untagged ```sh block is an error: every command of
// the page is either run or accounted for.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sdk_support.hpp"

namespace fs = std::filesystem;
using namespace dualgap::sdk_test;

namespace {

struct Block {
  std::string tag;   // "test", "test=env", "test=prebuilt"
  std::string text;
  int line = 0;
};

std::vector<Block> shell_blocks(const fs::path& md) {
  std::ifstream in(md);
  std::vector<Block> out;
  std::string line;
  int n = 0;
  Block* cur = nullptr;
  bool in_other = false;
  while (std::getline(in, line)) {
    ++n;
    std::string trimmed = line.substr(std::min(line.find_first_not_of(' '), line.size()));
    if (cur) {
      if (trimmed.rfind("```", 0) == 0) cur = nullptr;
      else cur->text += line + "\n";
      continue;
    }
    if (in_other) {
      if (trimmed.rfind("```", 0) == 0) in_other = false;
      continue;
    }
    if (trimmed.rfind("```sh", 0) == 0) {
      Block b;
      b.line = n;
      const auto open = trimmed.find('{'), close = trimmed.find('}');
      if (open != std::string::npos && close != std::string::npos) b.tag = trimmed.substr(open + 1, close - open - 1);
      out.push_back(b);
      cur = &out.back();
    } else if (trimmed.rfind("```", 0) == 0) {
      in_other = true;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("tutorial: every shell block of docs/writing-an-oracle.md is tagged") {
  const auto blocks = shell_blocks(fs::path(DUALGAP_TEST_SOURCE_DIR) / "docs" / "writing-an-oracle.md");
  REQUIRE(blocks.size() >= 5);
  for (const auto& b : blocks) {
    INFO("block at line " << b.line);
    CHECK((b.tag == "test" || b.tag == "test=env" || b.tag == "test=prebuilt"));
    // The one command the test does not run configures a checkout that has no build folder; it
    // must not switch dualgap's own options (tests, benchmarks) off in the reader's tree.
    if (b.tag == "test=prebuilt") CHECK(b.text.find("-DDUALGAP_") == std::string::npos);
  }
}

TEST_CASE("tutorial: the commands of docs/writing-an-oracle.md run from scaffold to experiment" *
          dualgap::test::needs_plugins({"dualgap_bcfw.so", "dualgap_synthetic_chain.so", "dualgap_synthetic_multiclass.so",
                                        "dualgap_chain_viterbi.so"})) {
  const Sdk& s = sdk();
  REQUIRE(s.ok);
  const fs::path builtin = s.libdir / "dualgap" / "plugins";
  dualgap::test::require_plugins(builtin, {"dualgap_bcfw.so", "dualgap_synthetic_chain.so", "dualgap_synthetic_multiclass.so",
                                           "dualgap_chain_viterbi.so"});
  dualgap::test::TempDir t;
  std::string script = "set -eu -o pipefail\nset -x\n";
  script += "export DUALGAP_SRC=" + q(DUALGAP_TEST_SOURCE_DIR) + "\n";
  script += "export DUALGAP_BUILD=" + q(DUALGAP_TEST_BINARY_DIR) + "\n";
  script += "export DUALGAP_PREFIX=" + q(s.prefix) + "\n";
  script += "unset DUALGAP_PLUGIN_PATH\n";
  for (const auto& b : shell_blocks(fs::path(DUALGAP_TEST_SOURCE_DIR) / "docs" / "writing-an-oracle.md"))
    if (b.tag == "test") script += "# --- block at line " + std::to_string(b.line) + "\n" + b.text;
  {
    std::ofstream(t.path / "tutorial.sh") << script;
  }
  fs::create_directories(t.path / "work");
  const fs::path cache = fs::path(DUALGAP_TEST_BINARY_DIR) / "CMakeCache.txt";
  const std::string cache_before = dualgap::read_file(cache.string());
  const auto r = sh("cd " + q(t.path / "work") + " && bash ../tutorial.sh");
  INFO(r.output);
  REQUIRE(r.status == 0);
  // The page builds and installs from the reader's build folder without changing its settings.
  CHECK(dualgap::read_file(cache.string()) == cache_before);
  // What the page promises happened.
  CHECK(fs::exists(t.path / "work" / "my_chain" / "build" / "plugins" / "dualgap_my_chain.so"));
  CHECK(r.output.find("my_chain") != std::string::npos);
  // The chain runs, with my_chain and with the built-in chain_viterbi: same model, same seeds,
  // so the same final primal and dual for each solver (the page says so).
  int compared = 0;
  const fs::path mine = t.path / "work" / "runs" / "my-chain-demo";
  const fs::path theirs = t.path / "work" / "runs-builtin" / "my-chain-demo";
  REQUIRE(fs::exists(mine));
  for (const auto& e : fs::directory_iterator(mine)) {
    if (!fs::exists(e.path() / "run.json")) continue;
    INFO(e.path().string());
    const auto a = dualgap::json::parse(dualgap::read_file(e.path() / "run.json"));
    CHECK(a["status"] != "failed");
    CHECK(a["config"]["oracle"]["plugin"] == "my_chain");
    REQUIRE(fs::exists(theirs / e.path().filename() / "run.json"));
    const auto b = dualgap::json::parse(dualgap::read_file(theirs / e.path().filename() / "run.json"));
    CHECK(b["config"]["oracle"]["plugin"] == "chain_viterbi");
    CHECK(a["summary"]["primal"].get<double>() ==
          doctest::Approx(b["summary"]["primal"].get<double>()).epsilon(1e-9));
    CHECK(a["summary"]["dual"].get<double>() ==
          doctest::Approx(b["summary"]["dual"].get<double>()).epsilon(1e-9));
    ++compared;
  }
  CHECK(compared == 2);
}
