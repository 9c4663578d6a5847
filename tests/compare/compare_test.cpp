// dualgap compare: grouping, reference bounds, resampling, censoring, CLI exit codes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <sys/wait.h>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.hpp"
#include "compare/compare.hpp"
#include "compare/model.hpp"
#include "synthetic.hpp"
#include "test_support.hpp"

using dualgap::cli::run_command;  // a command as the CLI runs it: its exit status

using namespace dualgap::compare;
using dualgap::test::Capture;
using dualgap::compare::testing::SyntheticRun;
using dualgap::compare::testing::TempDir;
using dualgap::compare::testing::write_run;
using nlohmann::json;

namespace {

// A hand-made run: three checkpoints, values chosen so that bounds are easy to check by hand.
json tiny_run(const std::string& run_id, const std::string& solver, json primal, json dual, json extra = json::object()) {
  json run = {{"schema", "dualgap.run/1"},
              {"experiment", "tiny"},
              {"run_id", run_id},
              {"solver", solver},
              {"status", "done"},
              {"message", ""},
              {"problem_key", "K1"},
              {"config", {{"solver", {{"name", solver}}}}},
              {"curve",
               {{"passes", {0, 1, 2}},
                {"oracle_calls", {0, 10, 20}},
                {"time", {0.0, 1.0, 2.0}},
                {"oracle_time", {0.0, 0.5, 1.0}},
                {"primal", primal},
                {"dual", dual}}},
              {"summary", json::object()}};
  run.update(extra);
  return run;
}

}  // namespace

TEST_CASE("grouping by problem_key and by solver; reference bounds") {
  TempDir tmp;
  write_run(tmp.path, tiny_run("a1", "A", {5.0, 3.0, 2.0}, {0.0, 1.0, 1.5}));
  write_run(tmp.path, tiny_run("a2", "A", {6.0, 2.5, 2.2}, {0.5, 1.2, 1.6}));
  write_run(tmp.path, tiny_run("b1", "B", {4.0, 2.1, 1.9}, {0.2, 1.7, 1.8}));
  // another problem: no certified dual at all
  write_run(tmp.path, tiny_run("c1", "A", {10.0, 8.0, 7.0}, {nullptr, nullptr, nullptr}, {{"problem_key", "K2"}}));

  RunSet set = load_runs({tmp.path.string()});
  REQUIRE(set.runs.size() == 4);
  REQUIRE(set.problems.size() == 2);
  CHECK(set.solvers == std::vector<std::string>{"A", "B"});
  const Problem& p1 = set.problems[set.runs[0].problem];
  CHECK(p1.key == "K1");
  CHECK(p1.runs.size() == 3);
  CHECK(p1.solvers == std::vector<std::string>{"A", "B"});
  CHECK(p1.best_upper == doctest::Approx(1.9));  // lowest primal over all runs
  CHECK(p1.best_lower == doctest::Approx(1.8));  // highest dual over all runs
  CHECK(p1.has_dual);
  const Problem& p2 = set.problems[1 - set.runs[0].problem];
  CHECK(p2.key == "K2");
  CHECK_FALSE(p2.has_dual);
  CHECK(p2.best_upper == doctest::Approx(7.0));

  // primal suboptimality = primal - best lower bound; dual = best upper bound - dual
  const Run& a1 = set.runs[0];
  REQUIRE(a1.run_id == "a1");
  auto ps = series(set, a1, "primal_subopt");
  REQUIRE(ps.size() == 3);
  CHECK(ps[2] == doctest::Approx(2.0 - 1.8));
  auto ds = series(set, a1, "dual_subopt");
  CHECK(ds[0] == doctest::Approx(1.9 - 0.0));
  CHECK(ds[2] == doctest::Approx(1.9 - 1.5));
  // without a certified dual: relative objective, labelled as such
  const Run& c1 = set.runs[3];
  CHECK(resolve_y(p2, "primal_subopt") == "rel_objective");
  CHECK(resolve_y(p2, "dual_subopt") == "");
  CHECK(series(set, c1, "primal_subopt").empty());
  auto rel = series(set, c1, "rel_objective");
  CHECK(rel[0] == doctest::Approx((10.0 - 7.0) / 7.0));
  CHECK(rel[2] == doctest::Approx(0.0));
  CHECK(axis_label("rel_objective").find("relative objective") != std::string::npos);
}

TEST_CASE("without problem_key, runs group by configuration minus solver/seed/repeat/stop/record") {
  TempDir tmp;
  auto make = [&](const std::string& id, const std::string& solver, int seed, double lambda, int max_passes) {
    json run = tiny_run(id, solver, {3.0, 2.0, 1.0}, {0.0, 0.5, 0.9});
    run.erase("problem_key");
    run["config"] = {{"name", "tiny"},
                     {"data", {{"plugin", "dense_text"}, {"train", "usps/zip.train.gz"}}},
                     {"oracle", {{"plugin", "multiclass"}}},
                     {"problem", {{"lambda", lambda}}},
                     {"solver", {{"name", solver}, {"plugin", "bcfw"}}},
                     {"seed", seed},
                     {"repeat", seed},
                     {"stop", {{"max_passes", max_passes}}},
                     {"record", {{"every", 1}}}};
    write_run(tmp.path, run);
  };
  make("r1", "BCFW", 0, 0.1, 10);
  make("r2", "MP-BCFW", 1, 0.1, 20);  // same problem: only solver/seed/stop differ
  make("r3", "BCFW", 0, 0.01, 10);    // other lambda: other problem
  RunSet set = load_runs({tmp.path.string()});
  REQUIRE(set.runs.size() == 3);
  CHECK(set.problems.size() == 2);
  CHECK(set.runs[0].problem == set.runs[1].problem);
  CHECK(set.runs[0].problem != set.runs[2].problem);
  CHECK(set.runs[1].solver == "MP-BCFW");
  // the label names the data and the problem parameters
  CHECK(set.problems[0].label.find("zip.train.gz") != std::string::npos);
}

TEST_CASE("unreadable files are warnings, single files and missing paths") {
  TempDir tmp;
  auto good = write_run(tmp.path, tiny_run("g", "A", {2.0, 1.0, 0.5}, {0.0, 0.2, 0.4}));
  std::filesystem::create_directories(tmp.path / "tiny" / "bad");
  std::ofstream(tmp.path / "tiny" / "bad" / "run.json") << "{ not json";
  std::filesystem::create_directories(tmp.path / "tiny" / "other");
  std::ofstream(tmp.path / "tiny" / "other" / "run.json") << R"({"schema":"something/2"})";
  RunSet set = load_runs({tmp.path.string()});
  CHECK(set.runs.size() == 1);
  CHECK(set.warnings.size() == 2);
  RunSet one = load_runs({good.string()});
  CHECK(one.runs.size() == 1);
  CHECK_THROWS_AS(load_runs({(tmp.path / "missing").string()}), std::runtime_error);
}

TEST_CASE("grids: log-spaced when x spans decades, exact ends") {
  CHECK(spans_decades(1, 100));
  CHECK_FALSE(spans_decades(1, 50));
  CHECK_FALSE(spans_decades(0, 1000));
  auto g = make_grid(1e-3, 10, 5, true);
  REQUIRE(g.size() == 5);
  CHECK(g.front() == 1e-3);
  CHECK(g.back() == 10);
  CHECK(g[1] / g[0] == doctest::Approx(g[4] / g[3]));
  auto l = make_grid(0, 4, 5, false);
  CHECK(l == std::vector<double>{0, 1, 2, 3, 4});
}

TEST_CASE("step resampling: value at the last checkpoint <= x, no extrapolation") {
  const std::vector<double> x = {1, 2, 4, 8};
  const std::vector<double> y = {10, 5, kNaN, 1};
  auto r = resample_step(x, y, {0.5, 1, 1.5, 2, 3, 4, 5, 8, 9});
  CHECK(std::isnan(r[0]));     // before the first checkpoint
  CHECK(r[1] == 10);
  CHECK(r[2] == 10);
  CHECK(r[3] == 5);
  CHECK(r[4] == 5);
  CHECK(r[5] == 5);            // y missing at x=4: last valid value stands
  CHECK(r[6] == 5);
  CHECK(r[7] == 1);
  CHECK(std::isnan(r[8]));     // past the run's end
  CHECK(median_of({3, 1, 2}) == 2);
  CHECK(median_of({4, 1, 2, 3}) == 2.5);
  CHECK(median_of({kNaN, 7}) == 7);
}

TEST_CASE("step resampling of restarts (sampling mode): x need not grow, the restart with the largest x <= g counts") {
  // times of four restarts with tighter budgets; the third was faster than the second
  const std::vector<double> x = {1, 3, 2, 5};
  const std::vector<double> y = {10, 6, 8, 4};
  auto r = resample_step(x, y, {0.5, 1, 2, 2.5, 3, 4, 5, 6});
  CHECK(std::isnan(r[0]));
  CHECK(r[1] == 10);
  CHECK(r[2] == 8);
  CHECK(r[3] == 8);
  CHECK(r[4] == 6);
  CHECK(r[5] == 6);
  CHECK(r[6] == 4);
  CHECK(std::isnan(r[7]));
}

TEST_CASE("bands: median with min-max over repeats on a shared grid") {
  TempDir tmp;
  write_run(tmp.path, tiny_run("a1", "A", {5.0, 3.0, 2.0}, {0.0, 1.0, 2.0}));
  write_run(tmp.path, tiny_run("a2", "A", {7.0, 4.0, 3.0}, {0.0, 1.0, 2.0}));
  json short_run = tiny_run("a3", "A", {6.0, 2.5, 0}, {0.0, 1.0, 2.0});
  short_run["curve"]["primal"] = {6.0, 2.5, nullptr};  // the third repeat stopped early
  write_run(tmp.path, short_run);
  RunSet set = load_runs({tmp.path.string()});
  Options opt;
  opt.grid_points = 3;
  Curves c = make_curves(set, set.problems[0], "passes", "primal", opt);
  CHECK_FALSE(c.log_x);
  REQUIRE(c.grid == std::vector<double>{0, 1, 2});
  REQUIRE(c.bands.size() == 1);
  const Band& b = c.bands[0];
  CHECK(b.runs == 3);
  CHECK(b.median == std::vector<double>{6, 3, 2.5});
  CHECK(b.lo == std::vector<double>{5, 2.5, 2});
  CHECK(b.hi == std::vector<double>{7, 4, 3});
  CHECK(b.count == std::vector<int>{3, 3, 2});
}

TEST_CASE("censoring: runs that never reach eps count as '> budget'") {
  CHECK(first_reach({0, 1, 2}, {1, 0.1, 0.01}, 0.1).reached);
  CHECK(first_reach({0, 1, 2}, {1, 0.1, 0.01}, 0.1).value == 1);
  Hit miss = first_reach({0, 1, 2}, {1, 0.5, 0.2}, 0.1);
  CHECK_FALSE(miss.reached);
  CHECK(miss.value == 2);

  // 3 of 5 reached: the median is a reached value; the max is censored
  auto s = censored_stats({{true, 1}, {true, 3}, {true, 2}, {false, 10}, {false, 4}});
  CHECK(s.total == 5);
  CHECK(s.reached == 3);
  CHECK(s.median == 3);
  CHECK_FALSE(s.median_censored);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.max_censored);
  // 1 of 3 reached: the median is censored at the middle lower bound (5)
  auto c = censored_stats({{true, 1}, {false, 7}, {false, 5}});
  CHECK(c.median_censored);
  CHECK(c.median == 5);
  json cell = {{"total", 3}, {"reached", 1}, {"median", 5.0}, {"median_censored", true},
               {"min", 1.0}, {"max", 7.0}, {"max_censored", true}};
  CHECK(format_cell(cell) == ">5 [1, >7] 1/3");
  // Budgets differ (a time budget ends runs at different passes): a run censored at 7521 may lie
  // below another's reached 7779, so the median is only bounded below (by 7770, the middle lower
  // bound) and the max is at least the reached 7779, not the largest budget 7770.
  auto mixed = censored_stats({{false, 7521}, {true, 7779}, {false, 7770}});
  CHECK(mixed.median_censored);
  CHECK(mixed.median == 7770);
  CHECK(mixed.max == 7779);
  CHECK(mixed.max_censored);
  CHECK(mixed.min == 7779);
  // A run censored between two reached values makes the median uncertain: it lies in (1.5, 2].
  auto high = censored_stats({{true, 1}, {true, 2}, {false, 1.5}});
  CHECK(high.median_censored);
  CHECK(high.median == 1.5);
  // Censored beyond the middle pair: exact.
  auto even = censored_stats({{true, 1}, {true, 2}, {true, 4}, {false, 5}});
  CHECK_FALSE(even.median_censored);
  CHECK(even.median == 3);
  // none reached
  auto n = censored_stats({{false, 3}, {false, 4}});
  CHECK(n.reached == 0);
  CHECK(n.median_censored);
  CHECK(std::isnan(n.min));
}

TEST_CASE("tables: censored runs are kept, failures and timeouts counted") {
  TempDir tmp;
  for (int r = 0; r < 3; ++r) {
    SyntheticRun s;
    s.run_id = "fast" + std::to_string(r);
    s.solver = "MP-BCFW";
    s.rate = 0.3;
    s.seed = r;
    write_run(tmp.path, synthetic_run_json(s));
  }
  for (int r = 0; r < 3; ++r) {
    SyntheticRun s;
    s.run_id = "slow" + std::to_string(r);
    s.solver = "BCFW";
    s.rate = 0.05;
    s.seed = r;
    s.checkpoints = r == 2 ? 5 : 50;  // this one timed out early
    s.status = r == 2 ? "timeout" : "done";
    write_run(tmp.path, synthetic_run_json(s));
  }
  RunSet set = load_runs({tmp.path.string()});
  json t = compute_tables(set, "primal_subopt", {1e-1, 1e-3}, Options{});
  REQUIRE(t["problems"].size() == 1);
  const json& p = t["problems"][0];
  CHECK(p["y"] == "primal_subopt");
  json bcfw;
  for (const auto& s : p["solvers"])
    if (s["solver"] == "BCFW") bcfw = s;
  REQUIRE(bcfw.is_object());
  CHECK(bcfw["runs"] == 3);
  CHECK(bcfw["timeouts"] == 1);
  CHECK(bcfw["status"]["done"] == 2);
  // eps = 0.1: the timed-out run (5 checkpoints) never got there, but is not dropped
  const json& cell = bcfw["reach"][0]["passes"];
  CHECK(cell["total"] == 3);
  CHECK(cell["reached"] == 2);
  CHECK(cell["max_censored"] == true);
  // The censored run stopped at pass 4, before the others reached eps (at 44 and 49): the max is at
  // least the largest reached value, not that early budget.
  CHECK(cell["max"] == 49);
  CHECK(cell["median_censored"] == true);  // the censored run may lie between the two reached
  const std::string text = format_text(t);
  INFO(text);
  CHECK(text.find(">44 [44, >49] 2/3") != std::string::npos);
  CHECK(text.find("timeout") != std::string::npos);
  CHECK(t["runs"].size() == 6);
}

TEST_CASE("oracle-cost replay rescales the oracle share of time only") {
  TempDir tmp;
  write_run(tmp.path, tiny_run("a", "A", {3.0, 2.0, 1.0}, {0.0, 0.5, 0.9}));
  RunSet set = load_runs({tmp.path.string()});
  auto t = series(set, set.runs[0], "time", 10.0);
  // time 2.0 of which oracle 1.0: (2 - 1) + 10 * 1
  CHECK(t[2] == doctest::Approx(11.0));
  CHECK(series(set, set.runs[0], "time_recorded", 10.0)[2] == doctest::Approx(2.0));
  CHECK(series(set, set.runs[0], "oracle_time", 10.0)[2] == doctest::Approx(10.0));
  CHECK(axis_label("time", 10.0).find("x10") != std::string::npos);
}

TEST_CASE("compare command: exit status and outputs") {
  TempDir tmp;
  for (const char* solver : {"BCFW", "MP-BCFW"}) {
    SyntheticRun s;
    s.solver = solver;
    s.run_id = solver;
    write_run(tmp.path / "results", synthetic_run_json(s));
  }
  const std::string dir = (tmp.path / "results").string();
  {
    Capture c;
    CHECK(run_command("compare", {"--help"}) == 0);
    CHECK(c.out.str().find("--oracle-cost") != std::string::npos);
  }
  CHECK(run_command("compare", {dir, "--no-such-option"}) == 2);
  CHECK(run_command("compare", {}) == 2);
  CHECK(run_command("compare", {dir, "--y", "no_such_column"}) == 2);
  CHECK(run_command("compare", {dir, "--figure", "out.gif"}) == 2);
  CHECK(run_command("compare", {dir, "--eps", "1e-2,abc"}) == 2);
  CHECK(run_command("compare", {(tmp.path / "missing").string()}) == 1);
  std::filesystem::create_directories(tmp.path / "empty");
  CHECK(run_command("compare", {(tmp.path / "empty").string()}) == 1);
  {
    Capture c;
    CHECK(run_command("compare", {dir, "--table", "--x", "time"}) == 0);
    CHECK(c.out.str().find("MP-BCFW") != std::string::npos);
    CHECK(c.out.str().find("eps=0.01") != std::string::npos);
  }
  const std::string js = (tmp.path / "t.json").string();
  CHECK(run_command("compare", {dir, "--json=" + js, "--eps", "0.1,0.02"}) == 0);
  std::ifstream in(js);
  json t = json::parse(in);
  CHECK(t["schema"] == "dualgap.compare/1");
  CHECK(t["eps"].size() == 2);
  CHECK(t["problems"][0]["solvers"].size() == 2);
  CHECK(t["problems"][0]["solvers"][0]["reach"][1]["time"]["reached"] == 1);
}

TEST_CASE("the dualgap CLI dispatches `compare`") {
  const std::filesystem::path cli = DUALGAP_TEST_CLI;
  if (!std::filesystem::exists(cli)) {
    if (std::getenv("CI")) FAIL_CHECK("dualgap CLI not built: " << cli);
    else MESSAGE("SKIPPED: dualgap CLI not built (" << cli << "); build target dualgap");
    return;
  }
  TempDir tmp;
  SyntheticRun s;
  write_run(tmp.path, synthetic_run_json(s));
  const std::string base = cli.string() + " compare ";
  auto status = [](int raw) { return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1; };
  CHECK(status(std::system((base + tmp.path.string() + " --table >/dev/null").c_str())) == 0);
  CHECK(status(std::system((base + tmp.path.string() + " --bogus 2>/dev/null").c_str())) == 2);
  CHECK(status(std::system((base + (tmp.path / "missing").string() + " 2>/dev/null").c_str())) == 1);
}

TEST_CASE("approximate problems are flagged; a failed run with an empty curve is kept") {
  TempDir tmp;
  SyntheticRun s;
  s.approximate = true;
  s.solver = "MP-BCFW";
  write_run(tmp.path, synthetic_run_json(s));
  json failed = synthetic_run_json(SyntheticRun{});
  failed["run_id"] = "crashed";
  failed["status"] = "failed";
  failed["message"] = "oracle threw: bad label";
  failed["curve"] = {{"passes", json::array()}, {"primal", json::array()}};
  write_run(tmp.path, failed);
  RunSet set = load_runs({tmp.path.string()});
  REQUIRE(set.runs.size() == 2);
  REQUIRE(set.problems.size() == 1);
  CHECK(set.problems[0].approximate);
  json t = compute_tables(set, "primal_subopt", {0.1}, Options{});
  CHECK(t["problems"][0]["approximate"] == true);
  json bcfw;
  for (const auto& js : t["problems"][0]["solvers"])
    if (js["solver"] == "BCFW") bcfw = js;
  REQUIRE(bcfw.is_object());
  CHECK(bcfw["failed"] == 1);
  CHECK(bcfw["reach"][0]["passes"]["total"] == 1);     // counted, censored at zero budget
  CHECK(bcfw["reach"][0]["passes"]["reached"] == 0);
  const std::string text = format_text(t);
  CHECK(text.find("approximate") != std::string::npos);
  CHECK(text.find("oracle threw: bad label") != std::string::npos);
  Curves c = make_curves(set, set.problems[0], "passes", "gap", Options{});
  CHECK(c.bands.size() == 1);  // the failed run has nothing to draw
}

TEST_CASE("repeats over different data splits (same group_key) form one band; bounds stay per split") {
  TempDir tmp;
  // Two splits of one problem (problem_key S1, S2; group_key G): each has its own optimum.
  write_run(tmp.path, tiny_run("a_r0", "A", {5.0, 3.0, 2.0}, {0.0, 1.0, 1.9}, {{"problem_key", "S1"}, {"group_key", "G"}}));
  write_run(tmp.path, tiny_run("a_r1", "A", {15.0, 13.0, 12.0}, {10.0, 11.0, 11.5}, {{"problem_key", "S2"}, {"group_key", "G"}}));
  write_run(tmp.path, tiny_run("b_r1", "B", {14.0, 12.5, 11.8}, {10.0, 11.6, 11.7}, {{"problem_key", "S2"}, {"group_key", "G"}}));
  RunSet set = load_runs({tmp.path.string()});
  REQUIRE(set.problems.size() == 1);
  CHECK(set.problems[0].runs.size() == 3);
  const Run& r0 = set.runs[0];
  const Run& r1 = set.runs[1];
  REQUIRE(r0.run_id == "a_r0");
  CHECK(series(set, r0, "primal_subopt")[2] == doctest::Approx(2.0 - 1.9));   // own split's bound
  CHECK(series(set, r1, "primal_subopt")[2] == doctest::Approx(12.0 - 11.7)); // B's dual on split 2
  CHECK(series(set, r1, "dual_subopt")[2] == doctest::Approx(11.8 - 11.5));
  Curves c = make_curves(set, set.problems[0], "passes", "primal_subopt", Options{});
  for (auto& b : c.bands)
    if (b.solver == "A") CHECK(b.runs == 2);
  // The group shows each split's bounds, never split 1's primal beside split 2's dual (2.0 < 11.7
  // would read as a lower bound above an upper bound).
  const Problem& g = set.problems[0];
  REQUIRE(g.split_bounds.size() == 2);
  CHECK(g.split_bounds[0].first == doctest::Approx(2.0));
  CHECK(g.split_bounds[0].second == doctest::Approx(1.9));
  CHECK(g.split_bounds[1].first == doctest::Approx(11.8));
  CHECK(g.split_bounds[1].second == doctest::Approx(11.7));
  CHECK(std::isnan(g.best_upper));
  CHECK(g.has_dual);
  const std::string text = format_text(compute_tables(set, "primal_subopt", {0.1}, Options{}));
  CHECK(text.find("2 data splits") != std::string::npos);
  CHECK(text.find("2 / 1.9; 11.8 / 11.7") != std::string::npos);
  CHECK(text.find("best upper bound") == std::string::npos);
}

TEST_CASE("a series never mixes experiments: two files sharing a problem and labels are two panels") {
  TempDir tmp;
  // Two experiment files on one problem (one group_key) with the same labels, as a column-
  // generation run and a fixed restricted problem both name their solvers FCD-1: their curves
  // end far apart (2.0 and 50.0), and a band over both would span them.
  for (const std::string exp : {"cg", "fixed"}) {
    const double end = exp == "cg" ? 2.0 : 50.0;
    for (int r = 0; r < 2; ++r) {
      json run = tiny_run(exp + "_r" + std::to_string(r), "FCD-1", {100.0, 60.0, end}, {0.0, 0.5, 1.0},
                          {{"experiment", exp}, {"group_key", "G"}, {"problem_key", "G"}});
      run["config"]["solver"]["plugin"] = "multiboost_cw";
      write_run(tmp.path, run);
    }
  }
  RunSet set = load_runs({tmp.path.string()});
  REQUIRE(set.problems.size() == 2);
  for (const Problem& p : set.problems) {
    REQUIRE(p.runs.size() == 2);
    const std::string experiment = set.runs[p.runs[0]].experiment;
    CHECK(set.runs[p.runs[1]].experiment == experiment);  // each panel is one experiment's runs
    CHECK(p.label.rfind(experiment, 0) == 0);               // and says which
    const Curves c = make_curves(set, p, "passes", "primal", Options{});
    REQUIRE(c.bands.size() == 1);
    CHECK(c.bands[0].runs == 2);
  }
  // The bound of the exact problem is still shared: both experiments solve it.
  CHECK(set.runs[0].best_upper == doctest::Approx(2.0));
  CHECK(set.runs.back().best_upper == doctest::Approx(2.0));

  SUBCASE("one experiment, one label, two configurations: refused, naming both files") {
    json other = tiny_run("cg_r9", "FCD-1", {100.0, 60.0, 30.0}, {0.0, 0.5, 1.0},
                          {{"experiment", "cg"}, {"group_key", "G"}, {"problem_key", "G"}});
    other["config"]["solver"]["plugin"] = "multiboost_cw";
    other["config"]["stop"] = {{"max_passes", 5}};
    write_run(tmp.path, other);
    try {
      load_runs({tmp.path.string()});
      FAIL("two configurations under one series were accepted");
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      CHECK(what.find("cg_r9/run.json") != std::string::npos);
      CHECK(what.find("cg_r0/run.json") != std::string::npos);
      CHECK(what.find("config.stop") != std::string::npos);
    }
  }
}
