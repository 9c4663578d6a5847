// A verdict on runs that are not at the claim's scale says so: runs cut with --set (fewer repeats,
// a shorter budget, less data) are checked against the experiment file of the claims' folder (or
// its ci profile) and every difference is listed with the verdict, in dualgap check's text,
// Markdown and JSON, and in the report's claims block.
#include <fstream>

#include "core/cli_support.hpp"

namespace fs = std::filesystem;
using dualgap::test::run_cli;
using dualgap::test::write_text;
using nlohmann::json;

namespace {

struct ScaleFolder {
  dualgap::test::TempDir dir;
  fs::path folder() const { return dir.path / "paper"; }
  fs::path claims() const { return folder() / "claims.yaml"; }
  ScaleFolder() {
    write_text(folder() / "exp.yaml",
               "name: scaled\n"
               "data: {plugin: synthetic_multiclass, n: 40, d: 4, K: 3}\n"
               "oracle: {plugin: multiclass}\n"
               "solvers:\n"
               "  - {name: BCFW, plugin: bcfw}\n"
               "stop: {max_passes: 20, max_time: 5m}\n"
               "repeats: 3\n");
    write_text(claims(),
               "paper: a paper\n"
               "experiment: scaled\n"
               "ci:\n"
               "  - file: exp.yaml\n"
               "    set: [repeats=2, stop.max_passes=10]\n"
               "claims:\n"
               "  - {id: small-gap, ref: Fig. 1, text: the gap ends small, final: {a: BCFW, metric: gap, below: 100}}\n");
  }
  /// Runs exp.yaml with `sets` into a fresh results folder.
  fs::path run(const std::string& name, const std::vector<std::string>& sets) const {
    std::string args = "run " + (folder() / "exp.yaml").string() + " --no-report --out " + (dir.path / name).string();
    for (const auto& s : sets) args += " --set " + s;
    auto r = run_cli(args);
    INFO(r.output);
    REQUIRE(r.code == 0);
    return dir.path / name;
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("check: a verdict on runs cut with --set lists how they differ from the claim's scale") {
  ScaleFolder f;
  const auto cut = f.run("cut", {"repeats=2", "stop.max_time=4"});
  const std::string check = "check " + cut.string() + " --claims " + f.claims().string();
  auto r = run_cli(check);
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("[holds (not at the claim's scale: repeats 2 not 3, stop.max_time 4 not 300)] small-gap") !=
        std::string::npos);
  CHECK(r.output.find("1 claims: 1 hold, 0 fail, 0 not measurable (1 on runs not at the claims' scale") !=
        std::string::npos);
  auto md = run_cli(check + " --format markdown");
  CHECK(md.output.find("| **holds** (not at the claim's scale: repeats 2 not 3, stop.max_time 4 not 300) |") !=
        std::string::npos);
  auto js = run_cli(check + " --format json");
  REQUIRE(js.code == 0);
  const json j = json::parse(js.output.substr(0, js.output.rfind('}') + 1));
  const json& claim = j["files"][0]["claims"][0];
  CHECK(claim["verdict"] == "holds");
  CHECK(claim["scale_differences"] == json({"repeats 2 not 3", "stop.max_time 4 not 300"}));
  // The report's claims block says the same.
  const fs::path html = f.dir.path / "report.html";
  auto c = run_cli("compare " + cut.string() + " --html " + html.string() + " --claims " + f.claims().string());
  INFO(c.output);
  REQUIRE(c.code == 0);
  const std::string page = read(html);
  CHECK(page.find("repeats 2 not 3, stop.max_time 4 not 300") != std::string::npos);
  CHECK(page.find("1 verdict is on runs not at the claim") != std::string::npos);
}

TEST_CASE("check: runs made at the ci profile are at CI scale, not at full scale; full runs are at full scale") {
  ScaleFolder f;
  const auto ci = f.run("ci", {"repeats=2", "stop.max_passes=10"});
  auto at_ci = run_cli("check " + ci.string() + " --claims " + f.claims().string() + " --scale ci");
  INFO(at_ci.output);
  CHECK(at_ci.code == 0);
  CHECK(at_ci.output.find("[holds] small-gap") != std::string::npos);
  auto at_full = run_cli("check " + ci.string() + " --claims " + f.claims().string());
  INFO(at_full.output);
  CHECK(at_full.output.find("[holds (not at the claim's scale: repeats 2 not 3, stop.max_passes 10 not 20)]") !=
        std::string::npos);
  // Less data than the file states is a difference too.
  const auto small = f.run("small", {"data.n=20"});
  auto s = run_cli("check " + small.string() + " --claims " + f.claims().string());
  INFO(s.output);
  CHECK(s.output.find("(not at the claim's scale: data.n 20 not 40)") != std::string::npos);
  const auto full = f.run("full", {});
  auto r = run_cli("check " + full.string() + " --claims " + f.claims().string());
  INFO(r.output);
  CHECK(r.output.find("[holds] small-gap") != std::string::npos);
  CHECK(r.output.find("not at the claim") == std::string::npos);
}
