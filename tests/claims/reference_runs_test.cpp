// The committed reference runs (results/<folder>) regenerate what the repository shows from them:
// each folder's generated README section and the experiments index row are exactly what
// `dualgap reproduce --from results/<folder>` writes, and the declared figures are committed
// beside the README. A README number edited by hand, or runs packed without re-rendering, fail
// here. Also the size limits of results/ (40 MB in all) and of a folder's figures (300 KB).
#include <fstream>

#include "check/claims.hpp"
#include "core/cli_support.hpp"

namespace fs = std::filesystem;
using namespace dualgap;
using dualgap::test::run_cli;
using dualgap::test::TempDir;

namespace {

std::uintmax_t tree_bytes(const fs::path& root) {
  std::uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) bytes += e.file_size();
  return bytes;
}

}  // namespace

TEST_CASE("every committed results/<folder> regenerates its README section, index row and figures") {
  const fs::path source = DUALGAP_TEST_SOURCE_DIR;
  const fs::path results = source / "results";
  REQUIRE(fs::is_directory(results));
  TempDir tmp;
  int folders = 0;
  for (const auto& e : fs::directory_iterator(results)) {
    if (!e.is_directory()) continue;
    const std::string name = e.path().filename().string();
    CAPTURE(name);
    const fs::path folder = source / "experiments" / name;
    REQUIRE(fs::is_regular_file(folder / "claims.yaml"));
    ++folders;
    // Relative paths, as the README's generated line names them.
    const auto r = run_cli("reproduce experiments/" + name + " --from results/" + name + " --figures " +
                               (tmp.path / name).string(),
                           "cd \"" + source.string() + "\" &&");
    INFO(r.output);
    CHECK(r.code == 0);
    CHECK(r.output.find("the README section is as committed") != std::string::npos);
    CHECK(r.output.find("@@") == std::string::npos);
    std::uintmax_t figure_bytes = 0;
    for (const auto& f : check::read_claims((folder / "claims.yaml").string()).figures) {
      CAPTURE(f.file);
      CHECK(fs::is_regular_file(tmp.path / name / f.file));  // drawn from the runs now
      REQUIRE(fs::is_regular_file(folder / f.file));         // and committed beside the README
      figure_bytes += fs::file_size(folder / f.file);
    }
    CHECK(figure_bytes <= 300u * 1024u);
  }
  CHECK(folders >= 1);
  CHECK(tree_bytes(results) <= 40u * 1024u * 1024u);
}
