// Parts of a sweep: --shard I/N (disjoint, balanced, covering), --only-id (exact, no glob), and
// `validate --json` (machine-readable ids, hashes, seeds).
#include <fmt/format.h>
#include <set>

#include "cli_support.hpp"
#include "experiment/selection.hpp"

using namespace dualgap;
using namespace dualgap::test;

namespace {
std::vector<RunSpec> runs_named(const std::vector<std::string>& ids) {
  std::vector<RunSpec> v;
  for (auto& id : ids) {
    RunSpec r;
    r.run_id = id;
    v.push_back(r);
  }
  return v;
}
}  // namespace

TEST_CASE("--shard: the N shares are disjoint, cover every run and differ in size by at most one") {
  std::vector<std::string> ids;
  for (int i = 0; i < 23; ++i) ids.push_back("r" + std::to_string(i));
  const auto runs = runs_named(ids);
  for (int n : {1, 2, 5, 23, 30}) {
    std::multiset<std::string> seen;
    std::size_t smallest = 1000, largest = 0;
    for (int i = 1; i <= n; ++i) {
      auto part = select_shard(runs, parse_shard(fmt::format("{}/{}", i, n)));
      smallest = std::min(smallest, part.size());
      largest = std::max(largest, part.size());
      for (auto& r : part) seen.insert(r.run_id);
    }
    CHECK(seen.size() == 23);
    CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == 23);
    CHECK(largest - smallest <= 1);
  }
  for (const char* bad : {"0/4", "5/4", "1/0", "1", "a/b", "1/4x", "-1/4", ""})
    CHECK_THROWS_AS(parse_shard(bad), ConfigError);
}

TEST_CASE("--only-id keeps exactly the named runs; glob characters are plain") {
  const auto runs = runs_named({"a[1]", "a1", "b*", "bb", "c?"});
  auto kept = select_ids(runs, {"a[1]", "b*"});
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].run_id == "a[1]");
  CHECK(kept[1].run_id == "b*");
  CHECK_THROWS_WITH_AS(select_ids(runs, {"c"}), doctest::Contains("--only-id 'c' names no run"), ConfigError);
}

TEST_CASE("validate --json lists ids, config hashes and seeds; --shard and --only-id on the CLI") {
  TempDir dir;
  write_text(dir.path / "exp.yaml",
             "name: sel\ndata: {plugin: synthetic_multiclass, n: 30, d: 3, K: 2}\noracle: {plugin: multiclass}\n"
             "solvers: [{name: A, plugin: bcfw}, {name: B, plugin: bcfw, params: {averaging: true}}]\n"
             "stop: {max_passes: 2}\nrepeats: 3\n");
  const std::string exp = (dir.path / "exp.yaml").string();
  auto r = run_cli("validate " + exp + " --json");
  INFO(r.output);
  REQUIRE(r.code == 0);
  json all = json::parse(r.output);
  REQUIRE(all.size() == 6);
  std::set<std::string> hashes;
  for (auto& run : all) {
    CHECK(run["config_hash"].get<std::string>().size() == 16);
    CHECK(run["seeds"].contains("data"));
    hashes.insert(run["config_hash"]);
  }
  CHECK(hashes.size() == 6);
  auto shard = json::parse(run_cli("validate " + exp + " --json --shard 2/4").output);
  REQUIRE(shard.size() == 2);
  CHECK(shard[0]["run_id"] == all[1]["run_id"]);
  CHECK(shard[1]["run_id"] == all[5]["run_id"]);
  auto one = json::parse(run_cli("validate " + exp + " --json --only-id B__r2").output);
  REQUIRE(one.size() == 1);
  CHECK(one[0]["config_hash"] == all[5]["config_hash"]);
  auto bad = run_cli("validate " + exp + " --only-id 'B__r*'");
  CHECK(bad.code == 2);
  CHECK(bad.output.find("--only-id 'B__r*' names no run") != std::string::npos);
  CHECK(run_cli("validate " + exp + " --shard 5/4").code == 2);
}
