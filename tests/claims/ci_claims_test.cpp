// The papers' claims at CI scale, on the real data of $DUALGAP_DATA: every experiment folder's
// claims.yaml names a `ci` profile (fewer repeats, subsampled data, a short budget); its runs are
// made and `dualgap check --scale ci --strict` must find every claim not marked `scale: full`
// measurable and holding. Skipped (doctest counts them) when DUALGAP_DATA is unset; CI runs them all.
#include <yaml-cpp/yaml.h>

#include "core/cli_support.hpp"

namespace fs = std::filesystem;
using dualgap::test::run_cli;

namespace {

std::string quote(const std::string& s) { return "'" + s + "'"; }

void check_folder(const std::string& folder) {
  const char* data = std::getenv("DUALGAP_DATA");
  REQUIRE_MESSAGE((data && *data), "DUALGAP_DATA is not set; needed for the claims of " << folder);
  const fs::path dir = fs::path(DUALGAP_TEST_SOURCE_DIR) / "experiments" / folder;
  const YAML::Node root = YAML::LoadFile((dir / "claims.yaml").string());
  REQUIRE(root["ci"]);
  dualgap::test::TempDir out;
  const std::string env = "DUALGAP_PLUGIN_PATH=" DUALGAP_TEST_PLUGIN_DIR;
  for (const auto& profile : root["ci"]) {
    std::string args = "run " + quote((dir / profile["file"].as<std::string>()).string()) + " --out " +
                       quote(out.str()) + " --jobs 2 --no-report";
    for (const auto& s : profile["set"]) args += " --set " + quote(s.as<std::string>());
    auto r = run_cli(args, env);
    INFO(r.output);
    REQUIRE_MESSAGE(r.code == 0, folder << ": the ci runs failed");
  }
  auto r = run_cli("check " + quote(out.str()) + " --claims " + quote((dir / "claims.yaml").string()) +
                       " --scale ci --strict",
                   env);
  MESSAGE(r.output);
  CHECK_MESSAGE(r.code == 0, folder << ": a claim fails or cannot be measured at CI scale");
  // The runs were made with the profile's values exactly: no verdict is marked off scale.
  CHECK_MESSAGE(r.output.find("not at the claim's scale") == std::string::npos,
                folder << ": runs made by the ci profile read as not at CI scale");
}

}  // namespace

// One case per folder, so that a failure names the paper's figure.
TEST_CASE("claims at CI scale: usps-ssvm" * dualgap::test::needs_real_data()) { check_folder("usps-ssvm"); }
TEST_CASE("claims at CI scale: mpbcfw-fig4-5-usps" * dualgap::test::needs_real_data()) { check_folder("mpbcfw-fig4-5-usps"); }
TEST_CASE("claims at CI scale: mpbcfw-fig4-5-ocr" * dualgap::test::needs_real_data()) { check_folder("mpbcfw-fig4-5-ocr"); }
TEST_CASE("claims at CI scale: mpbcfw-fig4-5-horse" * dualgap::test::needs_real_data()) { check_folder("mpbcfw-fig4-5-horse"); }
TEST_CASE("claims at CI scale: mpbcfw-fig4-5-potts" * dualgap::test::needs_real_data()) { check_folder("mpbcfw-fig4-5-potts"); }
TEST_CASE("claims at CI scale: multiboost-fig1-2-vowel" * dualgap::test::needs_real_data()) { check_folder("multiboost-fig1-2-vowel"); }
TEST_CASE("claims at CI scale: multiboost-fig1-2-usps" * dualgap::test::needs_real_data()) { check_folder("multiboost-fig1-2-usps"); }
TEST_CASE("claims at CI scale: multiboost-fig1-2-pendigits" * dualgap::test::needs_real_data()) { check_folder("multiboost-fig1-2-pendigits"); }
TEST_CASE("claims at CI scale: multiboost-fig1-2-mnist" * dualgap::test::needs_real_data()) { check_folder("multiboost-fig1-2-mnist"); }
TEST_CASE("claims at CI scale: multiboost-c-select" * dualgap::test::needs_real_data()) { check_folder("multiboost-c-select"); }
TEST_CASE("claims at CI scale: multiboost-fig6" * dualgap::test::needs_real_data()) { check_folder("multiboost-fig6"); }
TEST_CASE("claims at CI scale: lsr-table1" * dualgap::test::needs_real_data()) { check_folder("lsr-table1"); }
TEST_CASE("claims at CI scale: lsr-fig1-2" * dualgap::test::needs_real_data()) { check_folder("lsr-fig1-2"); }
TEST_CASE("claims at CI scale: lsr-text" * dualgap::test::needs_real_data()) { check_folder("lsr-text"); }
TEST_CASE("claims at CI scale: bcd-fig2-4" * dualgap::test::needs_real_data()) { check_folder("bcd-fig2-4"); }
TEST_CASE("claims at CI scale: bcd-fig5-table2" * dualgap::test::needs_real_data()) { check_folder("bcd-fig5-table2"); }
TEST_CASE("claims at CI scale: ssvm-baselines" * dualgap::test::needs_real_data()) { check_folder("ssvm-baselines"); }
