// The checked run.json reader (run/run_files.hpp) and what each command makes of a damaged run:
// compare skips it with a warning naming the file, evaluate fails on it (exit 1) and leaves the
// file byte for byte, status counts it as damaged and names it.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "base/util.hpp"
#include "cli_support.hpp"
#include "run/run_files.hpp"

namespace fs = std::filesystem;
using namespace dualgap;
using namespace dualgap::test;

namespace {

json minimal_run() {
  return json{{"schema", "dualgap.run/2"},
              {"status", "done"},
              {"experiment", "e"},
              {"run_id", "r"},
              {"curve", {{"passes", {0, 1, 2}}, {"primal", {3.0, nullptr, 1.0}}}}};
}

/// The message of the refusal of `doc` (the same in both curve modes), or "" when accepted.
std::string refusal(const std::string& text) {
  std::string a, b;
  try {
    parse_run_file(text, "res/e/r/run.json", CurveMode::columns);
  } catch (const RunFileError& e) {
    a = e.what();
  }
  try {
    parse_run_file(text, "res/e/r/run.json", CurveMode::document);
  } catch (const RunFileError& e) {
    b = e.what();
  }
  CHECK(a == b);
  return a;
}

std::string refusal_of(const json& doc) { return refusal(doc.dump()); }

void check_refused(const json& doc, const std::string& fragment) {
  const std::string msg = refusal_of(doc);
  INFO(doc.dump());
  INFO(msg);
  CHECK(msg.rfind("res/e/r/run.json: ", 0) == 0);
  CHECK(msg.find(fragment) != std::string::npos);
}

}  // namespace

TEST_CASE("run.json reader: a valid run in both curve modes") {
  const json doc = minimal_run();
  RunFile c = parse_run_file(doc.dump(), "x/run.json", CurveMode::columns);
  CHECK(c.rows == 3);
  CHECK_FALSE(c.doc.contains("curve"));
  REQUIRE(c.columns.count("primal"));
  CHECK(c.columns["primal"][0] == 3.0);
  CHECK(std::isnan(c.columns["primal"][1]));
  RunFile d = parse_run_file(doc.dump(), "x/run.json", CurveMode::document);
  CHECK(d.rows == 3);
  CHECK(d.doc["curve"] == doc["curve"]);
  CHECK(d.columns.empty());
  // an empty curve (a run that failed before its first checkpoint) is a run with no rows
  json empty = doc;
  empty["curve"] = json::object();
  empty["status"] = "failed";
  CHECK(parse_run_file(empty.dump(), "x/run.json", CurveMode::columns).rows == 0);
  // every status a run records is known
  for (const char* s : {"done", "budget", "timeout", "diverged", "failed", "interrupted"}) {
    json r = doc;
    r["status"] = s;
    CHECK(refusal_of(r).empty());
  }
  json v1 = doc;
  v1["schema"] = "dualgap.run/1";
  CHECK(refusal_of(v1).empty());
}

TEST_CASE("run.json reader: each damage is named by file, key path and what was expected") {
  json d = minimal_run();
  d["curve"] = "x";
  check_refused(d, "curve: expected an object of columns (arrays of numbers or null, one value per checkpoint), found "
                   "the string \"x\"");
  d.erase("curve");
  check_refused(d, "curve: missing (expected an object of columns");
  d = minimal_run();
  d["curve"] = json::array({1, 2});
  check_refused(d, "curve: expected an object of columns");
  d["curve"] = nullptr;
  check_refused(d, "curve: expected an object of columns (arrays of numbers or null, one value per checkpoint), found null");

  d = minimal_run();
  d.erase("schema");
  check_refused(d, "schema: missing (expected \"dualgap.run/2\"");
  d["schema"] = "something/2";
  check_refused(d, "schema: expected \"dualgap.run/2\" (or the older \"dualgap.run/1\": is this a dualgap run.json?), "
                   "found the string \"something/2\"");
  d["schema"] = "dualgap.run/9";
  check_refused(d, "found the string \"dualgap.run/9\"");

  d = minimal_run();
  d["status"] = "finished";
  check_refused(d, "status: expected a run status (done, budget, timeout, diverged, failed, interrupted, running), "
                   "found the string \"finished\"");
  d["status"] = 3;
  check_refused(d, "status: expected a run status");
  d.erase("status");
  check_refused(d, "status: missing");

  d = minimal_run();
  d["curve"]["primal"] = {1.0, "x", 2.0};
  check_refused(d, "curve.primal[1]: expected a number or null, found the string \"x\"");
  d["curve"]["primal"] = {1.0, true, 2.0};
  check_refused(d, "curve.primal[1]: expected a number or null, found true");
  d["curve"]["primal"] = {1.0, {1}, 2.0};
  check_refused(d, "curve.primal[1]: expected a number or null, found an array");
  d["curve"]["primal"] = {1.0, 2.0};
  check_refused(d, "curve.primal: 2 values, but curve.passes has 3 (expected one value per checkpoint in every column)");
  d["curve"]["primal"] = json::object();
  check_refused(d, "curve.primal: expected an array of numbers or null (one value per checkpoint), found an object");
  d["curve"]["primal"] = 5;
  check_refused(d, "curve.primal: expected an array of numbers or null");
  d["curve"]["primal"] = "abc";
  check_refused(d, "curve.primal: expected an array of numbers or null (one value per checkpoint), found the string");
  d = minimal_run();
  d["curve"]["we ird"] = {1, 2};
  check_refused(d, "curve.\"we ird\": 2 values");
  // two columns of one name, and two curves: JSON would keep the last silently
  CHECK(refusal(R"({"schema":"dualgap.run/2","status":"done","curve":{"passes":[1],"passes":[1,2]}})").find(
            "curve.passes: expected one column of each name") != std::string::npos);
  CHECK(refusal(R"({"schema":"dualgap.run/2","status":"done","curve":{"passes":[1]},"curve":{}})").find(
            "curve: expected one curve") != std::string::npos);
  // the curve as the first key (the DOM builder has no key to attach a value to yet)
  CHECK(refusal(R"({"curve":1,"schema":"dualgap.run/2","status":"done"})").find("curve: expected an object") !=
        std::string::npos);

  d = minimal_run();
  d["repeat"] = -1;
  check_refused(d, "repeat: expected a whole number from 0 to 2147483647, found the number -1");
  d["repeat"] = 1.5;
  check_refused(d, "repeat: expected a whole number");
  d["repeat"] = 1e12;
  check_refused(d, "repeat: expected a whole number");
  d = minimal_run();
  d["approximate"] = "yes";
  check_refused(d, "approximate: expected true or false, found the string \"yes\"");
  d = minimal_run();
  d["summary"] = {{"primal", "low"}};
  check_refused(d, "summary.primal: expected a number or null");
  d = minimal_run();
  d["config"] = "c";
  check_refused(d, "config: expected an object, found the string \"c\"");
  d["config"] = {{"solver", {{"name", 5}}}};
  check_refused(d, "config.solver.name: expected a string, found the number 5");
  d = minimal_run();
  d["sampling"] = {{"budget", 5}};
  check_refused(d, "sampling.budget: expected a string");
  d = minimal_run();
  d["evaluations"] = {1};
  check_refused(d, "evaluations[0]: expected an object");
  d = minimal_run();
  d["label"] = json::array();
  check_refused(d, "label: expected a string, found an empty array");

  // saved iterates: rows of the curve, files inside the run folder
  d = minimal_run();
  d["iterates"] = {{"mode", "final"}, {"model", "w"},
                   {"saved", {{{"row", 2}, {"passes", 2}, {"files", {{"w", "iterates/w_000002.npy"}}}}}}};
  CHECK(refusal_of(d).empty());
  json it = d;
  it["iterates"]["saved"][0]["row"] = 3;
  check_refused(it, "iterates.saved[0].row: expected a row of the curve (0 to 2), found the number 3");
  it["iterates"]["saved"][0]["row"] = -1;
  check_refused(it, "iterates.saved[0].row: expected a row of the curve");
  it = d;
  it["iterates"]["saved"][0]["files"]["w"] = "/etc/passwd";
  check_refused(it, "iterates.saved[0].files.w: expected a file name relative to the run folder, without '..'");
  it["iterates"]["saved"][0]["files"]["w"] = "iterates/../../x.npy";
  check_refused(it, "iterates.saved[0].files.w: expected a file name relative to the run folder");
  it["iterates"]["saved"][0]["files"]["w"] = 5;
  check_refused(it, "iterates.saved[0].files.w: expected a file name relative to the run folder, found the number 5");
  it = d;
  it["iterates"]["model"] = "tree";
  check_refused(it, "iterates.model: expected one of \"w\", \"W\", \"ensemble\", \"scores\", found the string \"tree\"");
  it = d;
  it["iterates"]["saved"] = {{{"row", 0}}};
  check_refused(it, "iterates.saved[0].passes: missing");
  it = d;
  it["iterates"]["saved"] = "all";
  check_refused(it, "iterates.saved: expected an array");

  // not a run.json at all
  CHECK(refusal("[1,2]").find("expected a JSON object (a dualgap run.json), found an array of 2 values") != std::string::npos);
  CHECK(refusal("{ not json").find("res/e/r/run.json: not valid JSON") == 0);
  CHECK(refusal("").find("not valid JSON") != std::string::npos);
  CHECK_THROWS_AS(read_run_file("/nonexistent/run.json", CurveMode::columns), std::runtime_error);
}

TEST_CASE("run.json reader: the config evaluate rebuilds a run from") {
  json d = minimal_run();
  auto config_refusal = [&](const json& doc) {
    try {
      check_run_config(parse_run_file(doc.dump(), "e/r/run.json", CurveMode::document));
    } catch (const RunFileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(config_refusal(d).find("e/r/run.json: config: missing (expected the run's configuration (an object)") == 0);
  d["config"] = {{"data", {{"plugin", "synthetic_multiclass"}, {"params", json::object()}}},
                 {"seeds", {{"data", 1}, {"features", 2}, {"solver", 3}}},
                 {"features", json::array()},
                 {"oracle", nullptr},
                 {"problem", json::object()},
                 {"solver", {{"plugin", "bcfw"}, {"params", json::object()}}},
                 {"record", {{"train_error", true}}}};
  CHECK(config_refusal(d).empty());
  // every key the rebuild reads is there: a const json's operator[] of a missing key is undefined
  // behaviour (a fuzzed run.json without data.params read freed memory)
  struct Cut {
    std::string section, key, message;  // erase config[section][key], or config[key] when section is ""
  };
  for (const Cut& cut : std::vector<Cut>{
           {"data", "params", "config.data.params: missing (expected the plugin's parameters (an object)"},
           {"solver", "params", "config.solver.params: missing"},
           {"", "features", "config.features: missing (expected a list of plugin sections, or null"},
           {"", "oracle", "config.oracle: missing (expected a plugin section, or null"},
           {"", "problem", "config.problem: missing (expected the problem section (an object)"}}) {
    json e = d;
    (cut.section.empty() ? e["config"] : e["config"][cut.section]).erase(cut.key);
    CHECK_MESSAGE(config_refusal(e).find(cut.message) != std::string::npos, cut.key << ": " << config_refusal(e));
  }
  json no_features = d;
  no_features["config"]["features"] = nullptr;  // no feature step, as an empty list
  CHECK(config_refusal(no_features).empty());
  json c = d;
  c["config"]["data"]["plugin"] = 5;
  CHECK(config_refusal(c).find("config.data.plugin: expected a plugin name, found the number 5") != std::string::npos);
  c = d;
  c["config"]["seeds"].erase("solver");
  CHECK(config_refusal(c).find("config.seeds.solver: missing") != std::string::npos);
  c = d;
  c["config"]["features"] = {{{"plugin", "pca"}, {"params", 3}}};
  CHECK(config_refusal(c).find("config.features[0].params: expected an object, found the number 3") != std::string::npos);
  c = d;
  c["config"].erase("record");
  CHECK(config_refusal(c).find("config.record: missing") != std::string::npos);
  c = d;
  c["config"]["record"]["train_error"] = "no";
  CHECK(config_refusal(c).find("config.record.train_error: expected true or false") != std::string::npos);
}

TEST_CASE("damaged runs: compare skips and names them, evaluate fails and writes nothing, status counts them") {
  TempDir dir;
  write_text(dir.path / "exp.yaml",
             "name: dmg\n"
             "data: {plugin: synthetic_multiclass, n: 40, n_test: 20, d: 4, K: 3}\n"
             "oracle: {plugin: multiclass}\n"
             "solvers:\n  - {name: BCFW, plugin: bcfw}\n"
             "stop: {max_passes: 2}\n"
             "record: {every: 1}\n");
  const fs::path res = dir.path / "res";
  REQUIRE(run_cli("run " + (dir.path / "exp.yaml").string() + " --no-report --out " + res.string()).code == 0);
  const fs::path good = res / "dmg" / "BCFW__r0" / "run.json";
  const json run = read_json(good);
  REQUIRE(run["iterates"]["saved"].size() == 1);
  // damaged copies beside the good run
  auto damaged = [&](const std::string& id, const std::function<void(json&)>& edit) {
    json j = run;
    edit(j);
    write_text(res / "dmg" / id / "run.json", j.dump(1));
    return res / "dmg" / id / "run.json";
  };
  const fs::path no_saved = damaged("no_saved", [](json& j) { j["iterates"]["saved"] = json::array(); });
  const fs::path no_config = damaged("no_config", [](json& j) { j.erase("config"); });
  const fs::path curve_x = damaged("curve_x", [](json& j) { j["curve"] = "x"; });
  const fs::path odd_status = damaged("odd_status", [](json& j) { j["status"] = "finished"; });
  const fs::path far_row = damaged("far_row", [](json& j) { j["iterates"]["saved"][0]["row"] = 99; });

  // compare: the good run is compared, each damaged one is a warning naming its file and key
  auto c = run_cli("compare " + res.string() + " --table");
  INFO(c.output);
  CHECK(c.code == 0);
  CHECK(c.output.find("warning: " + curve_x.string() + ": curve: expected an object of columns") != std::string::npos);
  CHECK(c.output.find("warning: " + odd_status.string() + ": status: expected a run status") != std::string::npos);
  CHECK(c.output.find(far_row.string() + ": iterates.saved[0].row: expected a row of the curve (0 to 2), found the number 99") !=
        std::string::npos);
  // compare of the damaged file alone: nothing to compare, exit 1, the file named
  auto only = run_cli("compare " + curve_x.string());
  CHECK(only.code == 1);
  CHECK(only.output.find(curve_x.string() + ": curve: expected") != std::string::npos);
  CHECK(only.output.find("no --x") == std::string::npos);

  // evaluate: each damaged run fails (exit 1), named, and stays byte for byte; the good one is re-scored
  std::map<fs::path, std::string> before;
  for (const auto& f : {no_saved, no_config, curve_x, odd_status, far_row}) before[f] = read_file(f.string());
  auto e = run_cli("evaluate " + (res / "dmg").string());
  INFO(e.output);
  CHECK(e.code == 1);
  CHECK(e.output.find(no_saved.string() + ": iterates.saved is empty: no iterate to re-score") != std::string::npos);
  CHECK(e.output.find(no_config.string() + ": config: missing (expected the run's configuration") != std::string::npos);
  CHECK(e.output.find("json.exception") == std::string::npos);
  for (const auto& [f, text] : before) CHECK(read_file(f.string()) == text);
  CHECK(read_json(good)["curve"].contains("primal@rescored"));

  // status: every run counted once, the damaged ones as such, each named
  auto s = run_cli("status " + (res / "dmg").string());
  INFO(s.output);
  CHECK(s.code == 0);
  CHECK(s.output.find("6 runs: ") != std::string::npos);
  CHECK(s.output.find(std::string("3 finished (") +
                      (run["status"] == "done" ? "3 converged, 0 stopped by a budget)" : "0 converged, 3 stopped by a budget)")) !=
        std::string::npos);
  CHECK(s.output.find("3 damaged") != std::string::npos);
  CHECK(s.output.find(odd_status.string() + ": status: expected a run status") != std::string::npos);
}

TEST_CASE("JSON preconditions throw in every build: a read the reader's checks missed fails, it does not read freed memory") {
  // dualgap/json.hpp makes nlohmann's JSON_ASSERT throw; under the library's own assert (gone with
  // NDEBUG, as in Release) each of these reads is undefined behaviour.
  const json run = minimal_run();
  CHECK_THROWS_WITH_AS(static_cast<void>(run["config"]), doctest::Contains("precondition failed"), std::logic_error);
  CHECK_THROWS_AS(static_cast<void>(run["curve"]["time"]), std::logic_error);
  const json empty = json::object();
  CHECK_THROWS_AS(static_cast<void>(*empty.begin()), std::logic_error);
  // What the checks guard is still readable, and at() keeps its own out_of_range error.
  CHECK(run["status"] == "done");
  CHECK_THROWS_AS(static_cast<void>(run.at("config")), json::out_of_range);
}
