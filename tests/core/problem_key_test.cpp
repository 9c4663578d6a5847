// Problems are identified by their data, not by their seeds: repeats on a fixed train/test split
// are one problem (one pair of reference bounds for every run), while repeats whose data a seed
// changed (a random split, generated data, random features) are one problem per draw.
#include <random>
#include <set>
#include <sstream>

#include "cli_support.hpp"

using namespace dualgap;
using namespace dualgap::test;
namespace fs = std::filesystem;

namespace {

/// Runs `data` (+ `extra`) with two BCFW variants, 2 repeats; returns the results folder.
fs::path run_two_repeats(const TempDir& dir, const std::string& name, const std::string& data, const std::string& extra = "") {
  write_text(dir.path / (name + ".yaml"),
             "name: " + name + "\n"
             "data: " + data + "\n" + extra +
             "oracle: {plugin: multiclass}\n"
             "solvers:\n"
             "  - {name: BCFW, plugin: bcfw}\n"
             "  - {name: MP, plugin: bcfw, params: {multiplane: true}}\n"
             "stop: {max_passes: 4}\n"
             "repeats: 2\n");
  const fs::path out = dir.path / ("res-" + name);
  auto r = run_cli("run " + (dir.path / (name + ".yaml")).string() + " --no-report --out " + out.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  return out;
}

std::set<std::string> keys(const fs::path& out, const std::string& name, const std::vector<std::string>& ids) {
  std::set<std::string> k;
  for (const auto& id : ids) {
    const auto j = read_json(out / name / id / "run.json");
    CHECK(j["data_content_hash"].is_string());
    k.insert(j["problem_key"].get<std::string>());
  }
  return k;
}

}  // namespace

TEST_CASE("a fixed train/test split is one problem whatever the repeat's seeds; compare bounds every run by it") {
  TempDir dir;
  write_blobs(dir.path / "train.svm", 30, 4, 3, 1);
  write_blobs(dir.path / "test.svm", 15, 4, 3, 2);
  const auto out = run_two_repeats(
      dir, "fixed", "{plugin: libsvm, train: " + (dir.path / "train.svm").string() + ", test: " + (dir.path / "test.svm").string() + "}");
  const auto r0 = read_json(out / "fixed" / "BCFW__r0" / "run.json");
  const auto r1 = read_json(out / "fixed" / "BCFW__r1" / "run.json");
  REQUIRE(r0["config"]["seeds"]["data"] != r1["config"]["seeds"]["data"]);  // the seeds differ...
  CHECK(keys(out, "fixed", {"BCFW__r0", "BCFW__r1", "MP__r0", "MP__r1"}).size() == 1);  // ...the data do not
  auto c = run_cli("compare " + out.string() + " --table --y primal_subopt");
  INFO(c.output);
  CHECK(c.code == 0);
  CHECK(c.output.find("data splits") == std::string::npos);
  CHECK(c.output.find("best upper bound (lowest primal)") != std::string::npos);
  auto j = run_cli("compare " + out.string() + " --json --y primal_subopt");
  REQUIRE(j.code == 0);
  const auto t = json::parse(j.output);
  REQUIRE(t["problems"].size() == 1);
  CHECK(t["problems"][0]["split_bounds"].size() == 1);
  CHECK(t["problems"][0]["runs"] == 4);
}

TEST_CASE("data a seed changed are one problem per draw: a random split, generated data, random features") {
  TempDir dir;
  write_blobs(dir.path / "all.svm", 40, 4, 3, 3);
  write_blobs(dir.path / "train.svm", 30, 4, 3, 1);
  write_blobs(dir.path / "test.svm", 15, 4, 3, 2);
  const std::string fixed = "{plugin: libsvm, train: " + (dir.path / "train.svm").string() + ", test: " +
                            (dir.path / "test.svm").string() + "}";
  struct Case {
    std::string name, data, extra;
  };
  for (const Case& c : {Case{"split", "{plugin: libsvm, train: " + (dir.path / "all.svm").string() + ", test_fraction: 0.25}", ""},
                        Case{"generated", "{plugin: synthetic_multiclass, n: 30, d: 4, K: 3}", ""},
                        Case{"features", fixed, "features: [{plugin: random_fourier, num_features: 8}]\n"}}) {
    CAPTURE(c.name);
    const auto out = run_two_repeats(dir, c.name, c.data, c.extra);
    // one key per repeat, shared by the solvers of that repeat
    CHECK(keys(out, c.name, {"BCFW__r0", "MP__r0"}).size() == 1);
    CHECK(keys(out, c.name, {"BCFW__r1", "MP__r1"}).size() == 1);
    CHECK(keys(out, c.name, {"BCFW__r0", "BCFW__r1"}).size() == 2);
    auto t = run_cli("compare " + out.string() + " --table --y primal_subopt");
    INFO(t.output);
    CHECK(t.code == 0);
    CHECK(t.output.find("2 data splits") != std::string::npos);
  }
}

TEST_CASE("run.json files without a data content hash keep their recorded problem key") {
  // Runs written before the key was derived from the data: compare groups them as they say, and
  // says why repeats of one data set can show as several splits.
  TempDir dir;
  write_blobs(dir.path / "train.svm", 30, 4, 3, 1);
  write_blobs(dir.path / "test.svm", 15, 4, 3, 2);
  const auto out = run_two_repeats(
      dir, "old", "{plugin: libsvm, train: " + (dir.path / "train.svm").string() + ", test: " + (dir.path / "test.svm").string() + "}");
  int n = 0;
  for (const auto& id : {"BCFW__r0", "BCFW__r1", "MP__r0", "MP__r1"}) {
    auto j = read_json(out / "old" / id / "run.json");
    j.erase("data_content_hash");
    j["problem_key"] = "seeded-" + std::to_string(j["repeat"].get<int>());  // as the seeds keyed it
    write_text(out / "old" / id / "run.json", j.dump());
    ++n;
  }
  auto c = run_cli("compare " + out.string() + " --table --y primal_subopt");
  INFO(c.output);
  CHECK(c.code == 0);
  CHECK(c.output.find("2 data splits") != std::string::npos);
  CHECK(c.output.find("recorded no data content hash") != std::string::npos);
}
