// dualgap compare for papers and per-objective grouping: labels, objective
// keys, n/a, selection and order, table formats, CSV export, performance profiles.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "compare/compare.hpp"
#include "compare/model.hpp"
#include "synthetic.hpp"
#include "test_support.hpp"
#include "base/util.hpp"

using dualgap::cli::run_command;  // a command as the CLI runs it: its exit status

using namespace dualgap::compare;
using dualgap::test::Capture;
using dualgap::read_file;
using dualgap::compare::testing::SyntheticRun;
using dualgap::compare::testing::run_capture;
using dualgap::compare::testing::TempDir;
using dualgap::compare::testing::write_run;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A run whose duality gap drops from 1 to 1e-6 at checkpoint `solved_at` (time = checkpoint
// index); never when solved_at < 0.
json timed_run(const std::string& problem, const std::string& solver, int repeat, int solved_at, int checkpoints = 9) {
  json time = json::array(), passes = json::array(), primal = json::array(), dual = json::array(), gap = json::array();
  for (int k = 0; k < checkpoints; ++k) {
    const double g = solved_at >= 0 && k >= solved_at ? 1e-6 : 1.0;
    time.push_back(k);
    passes.push_back(k);
    primal.push_back(1.0 + g);
    dual.push_back(1.0);
    gap.push_back(g);
  }
  return {{"schema", "dualgap.run/1"},
          {"experiment", "profiles"},
          {"run_id", problem + "-" + solver + "-" + std::to_string(repeat)},
          {"solver", solver},
          {"repeat", repeat},
          {"status", "done"},
          {"problem_key", problem},
          {"curve", {{"time", time}, {"passes", passes}, {"primal", primal}, {"dual", dual}, {"gap", gap}}}};
}

}  // namespace

TEST_CASE("performance and data profiles are exact on hand-made runs") {
  TempDir tmp;
  // time to reach gap <= 1e-3:   P1: A 1 (repeats 1, 1, 5: median 1), B 2, C never
  //                              P2: A 4, B 2, C 1
  //                              P3: A 3, B never, C 6
  write_run(tmp.path, timed_run("P1", "A", 0, 1));
  write_run(tmp.path, timed_run("P1", "A", 1, 1));
  write_run(tmp.path, timed_run("P1", "A", 2, 5));
  write_run(tmp.path, timed_run("P1", "B", 0, 2));
  write_run(tmp.path, timed_run("P1", "C", 0, -1));
  write_run(tmp.path, timed_run("P2", "A", 0, 4));
  write_run(tmp.path, timed_run("P2", "B", 0, 2));
  write_run(tmp.path, timed_run("P2", "C", 0, 1));
  write_run(tmp.path, timed_run("P3", "A", 0, 3));
  write_run(tmp.path, timed_run("P3", "B", 0, -1));
  write_run(tmp.path, timed_run("P3", "C", 0, 6));
  RunSet set = load_runs({tmp.path.string()});
  REQUIRE(set.problems.size() == 3);
  REQUIRE(set.solvers == std::vector<std::string>{"A", "B", "C"});
  ProfileOptions po;
  po.measure = "time";
  po.y = "gap";
  po.tol = 1e-3;
  const Profile pr = compute_profile(set, po, Options{});
  const double inf = INFINITY;
  // problems in order of first appearance: P1, P2, P3
  CHECK(pr.cost[0] == std::vector<double>{1, 2, inf});
  CHECK(pr.cost[1] == std::vector<double>{4, 2, 1});
  CHECK(pr.cost[2] == std::vector<double>{3, inf, 6});
  CHECK(pr.ratio[0] == std::vector<double>{1, 2, inf});
  CHECK(pr.ratio[1] == std::vector<double>{4, 2, 1});
  CHECK(pr.ratio[2] == std::vector<double>{1, inf, 2});
  // rho_s(tau) = #{p : ratio <= tau} / 3
  auto rho = [&](std::size_t s, double tau) { return profile_fraction(pr.ratios_of(s), 3, tau); };
  CHECK(rho(0, 1) == doctest::Approx(2.0 / 3));
  CHECK(rho(0, 3.99) == doctest::Approx(2.0 / 3));
  CHECK(rho(0, 4) == doctest::Approx(1.0));
  CHECK(rho(1, 1.99) == doctest::Approx(0.0));
  CHECK(rho(1, 2) == doctest::Approx(2.0 / 3));
  CHECK(rho(1, 1e9) == doctest::Approx(2.0 / 3));  // unsolved problems never count
  CHECK(rho(2, 1) == doctest::Approx(1.0 / 3));
  CHECK(rho(2, 2) == doctest::Approx(2.0 / 3));
  // data profile d_s(alpha) = #{p : cost <= alpha} / 3
  CHECK(profile_fraction(pr.costs_of(0), 3, 1) == doctest::Approx(1.0 / 3));
  CHECK(profile_fraction(pr.costs_of(0), 3, 3) == doctest::Approx(2.0 / 3));
  CHECK(profile_fraction(pr.costs_of(0), 3, 4) == doctest::Approx(1.0));
  // summary: solved, geometric mean of the ratio over the solved problems, ranking
  CHECK(pr.solved == std::vector<int>{3, 2, 2});
  CHECK(pr.geomean_ratio[0] == doctest::Approx(std::cbrt(4.0)));
  CHECK(pr.geomean_ratio[1] == doctest::Approx(2.0));
  CHECK(pr.geomean_ratio[2] == doctest::Approx(std::sqrt(2.0)));
  CHECK(pr.ranking == std::vector<std::size_t>{0, 2, 1});
  const json j = profile_json(pr);
  CHECK(j["ranking"] == json({"A", "C", "B"}));
  CHECK(j["solvers"][0]["performance_profile"]["tau"] == json({1.0, 4.0}));
  CHECK(j["solvers"][0]["performance_profile"]["rho"][0].get<double>() == doctest::Approx(2.0 / 3));

  // the CLI: --profile prints the ranking; --figure draws the profiles
  Capture c;
  REQUIRE(run_command("compare", {tmp.path.string(), "--profile", "--x", "time", "--y", "gap"}) == 0);
  const std::string out = c.out.str();
  INFO(out);
  CHECK(std::regex_search(out, std::regex("1 +A +3 +3 +1\\.59")));
  CHECK(std::regex_search(out, std::regex("2 +C +2 +3 +1\\.41")));
  CHECK(std::regex_search(out, std::regex("3 +B +2 +3 +2 ")));
  if (fs::exists("/usr/bin/python3")) {
    const fs::path png = tmp.path / "profiles.png";
    CHECK(run_command("compare", {tmp.path.string(), "--profile", "--x", "time", "--y", "gap", "--figure", png.string()}) == 0);
    CHECK(fs::file_size(png) > 10000);
  }
}

TEST_CASE("profiles: solvers that solved nothing are neither ranked nor drawn; the caption states the levels") {
  auto notes_of = [](const json& spec) {
    std::string n;
    for (const auto& s : spec["notes"]) n += s.get<std::string>() + "\n";
    return n;
  };
  ProfileOptions po;
  po.measure = "time";
  po.y = "gap";
  po.tol = 1e-3;
  SUBCASE("no problem solved") {
    TempDir tmp;
    for (const char* s : {"A", "B", "C", "D"}) write_run(tmp.path, timed_run("P1", s, 0, -1));
    RunSet set = load_runs({tmp.path.string()});
    const Profile pr = compute_profile(set, po, Options{});
    CHECK(pr.solved == std::vector<int>{0, 0, 0, 0});
    CHECK(pr.ranking.empty());
    CHECK(profile_json(pr)["ranking"] == json::array());
    const std::string text = format_profile(pr, TableFormat::text);
    INFO(text);
    CHECK(text.find("1 problems") == std::string::npos);
    CHECK(text.find("no solver solved the problem") != std::string::npos);
    CHECK(!std::regex_search(text, std::regex("\\n +[1-4] +[A-D] ")));  // no rank 1-4
    CHECK(std::regex_search(text, std::regex("- +A +0 +1 ")));
    const json spec = profile_figure_spec(set, pr, FigureOptions{});
    for (const auto& panel : spec["panels"]) CHECK(panel["series"].empty());  // nothing drawn at 0
    const std::string notes = notes_of(spec);
    CHECK(notes.find("1 problem;") != std::string::npos);
    CHECK(notes.find("A, B, C, D solved no problem") != std::string::npos);
    CHECK(notes.find("duality gap (P - D) / |D_best| <= 0.001 (relative levels)") != std::string::npos);
  }
  SUBCASE("one solver solved it") {
    TempDir tmp;
    write_run(tmp.path, timed_run("P1", "A", 0, 2));
    write_run(tmp.path, timed_run("P1", "B", 0, -1));
    write_run(tmp.path, timed_run("P1", "C", 0, -1));
    RunSet set = load_runs({tmp.path.string()});
    const Profile pr = compute_profile(set, po, Options{});
    CHECK(pr.ranking == std::vector<std::size_t>{0});
    CHECK(profile_json(pr)["ranking"] == json({"A"}));
    const std::string text = format_profile(pr, TableFormat::text);
    INFO(text);
    CHECK(std::regex_search(text, std::regex("1 +A +1 +1 ")));
    CHECK(std::regex_search(text, std::regex("- +B +0 +1 ")));
    const json spec = profile_figure_spec(set, pr, FigureOptions{});
    for (const auto& panel : spec["panels"]) {
      REQUIRE(panel["series"].size() == 1);
      CHECK(panel["series"][0]["label"] == "A");
    }
    CHECK(notes_of(spec).find("B, C solved no problem") != std::string::npos);
    Options absolute;
    absolute.levels = Options::Levels::absolute;
    const json abs_spec = profile_figure_spec(set, compute_profile(set, po, absolute), FigureOptions{});
    CHECK(notes_of(abs_spec).find("duality gap P - D <= 0.001 (absolute levels)") != std::string::npos);
  }
}

TEST_CASE("CSV export: one row per run x checkpoint; pandas loads it with the documented lines") {
  TempDir tmp;
  int checkpoints = 0;
  for (int r = 0; r < 3; ++r)
    for (const char* solver : {"BCFW", "MP-BCFW"}) {
      SyntheticRun s;
      s.solver = solver;
      s.run_id = std::string(solver) + "-" + std::to_string(r);
      s.seed = r;
      s.checkpoints = 20 + 7 * r;
      checkpoints += s.checkpoints;
      json run = synthetic_run_json(s);
      run["label"] = std::string(solver) + (r == 2 ? "[M=2]" : "");
      run["config"]["seeds"] = {{"data", 11}, {"solver", 100 + r}};
      run["repeat"] = r;
      write_run(tmp.path / "results", run);
    }
  const fs::path csv = tmp.path / "curves.csv";
  REQUIRE(run_command("compare", {(tmp.path / "results").string(), "--csv", csv.string()}) == 0);
  const std::string text = read_file(csv);
  std::istringstream in(text);
  std::string header, line;
  std::getline(in, header);
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  CHECK(rows == checkpoints);
  for (const char* col : {"experiment", "problem_key", "objective_key", "solver", "run_id", "repeat", "seed_data",
                          "seed_solver", "checkpoint", "passes", "primal", "dual", "test_error", "working_set_size",
                          "primal_subopt"})
    CHECK_MESSAGE(("," + header + ",").find(std::string(",") + col + ",") != std::string::npos, col);
  CHECK(text.find("BCFW[M=2]") != std::string::npos);

  // the three lines of docs/compare.md, run as they are written there
  const std::string docs = read_file(fs::path(DUALGAP_TEST_SOURCE_DIR) / "docs" / "compare.md");
  const auto marker = docs.find("<!-- pandas loader: tested by tests/compare/compare_paper_test.cpp -->");
  REQUIRE(marker != std::string::npos);
  const auto begin = docs.find("```python\n", marker) + 10;
  const auto end = docs.find("```", begin);
  const std::string loader = docs.substr(begin, end - begin);
  CHECK(std::count(loader.begin(), loader.end(), '\n') == 3);
  if (!fs::exists("/usr/bin/python3") ||
      run_capture("/usr/bin/python3 -c 'import pandas' 2>&1 && echo ok").find("ok") == std::string::npos) {
    if (std::getenv("CI")) FAIL_CHECK("python3-pandas is missing (scripts/setup.sh installs it)");
    else MESSAGE("SKIPPED: python3-pandas missing, the documented loader is not run");
    return;
  }
  std::ofstream(tmp.path / "load.py") << loader
                                      << "print(len(df), df['primal'].notna().sum(), sorted(df['solver'].unique()))\n";
  const std::string out =
      run_capture("cd " + tmp.path.string() + " && /usr/bin/python3 load.py 2>&1");
  INFO(out);
  CHECK(out.find(std::to_string(checkpoints) + " " + std::to_string(checkpoints) +
                 " ['BCFW', 'BCFW[M=2]', 'MP-BCFW', 'MP-BCFW[M=2]']") != std::string::npos);
}

TEST_CASE("labels make series; objective keys keep objectives apart; no objective is n/a") {
  TempDir tmp;
  for (int m : {1, 2})
    for (int r = 0; r < 2; ++r) {
      SyntheticRun s;
      s.solver = "B";
      s.run_id = fmt::format("B__M={}__r{}", m, r);
      s.seed = r;
      s.rate = 0.05 * m;
      json run = synthetic_run_json(s);
      run["label"] = fmt::format("B[M={}]", m);
      run["objective_key"] = "ssvm-hinge";
      write_run(tmp.path, run);
    }
  // same data, another objective: never measured against the hinge runs' bounds
  SyntheticRun ls;
  ls.solver = "GLS";
  ls.run_id = "GLS__r0";
  ls.optimum = 5.0;
  json gls = synthetic_run_json(ls);
  gls["objective_key"] = "square";
  gls["objective"] = {{"family", "lsr"}, {"loss", "square"}};
  write_run(tmp.path, gls);
  // a solver without objective on the hinge problem: n/a, never censored
  SyntheticRun ab;
  ab.solver = "AdaBoost";
  ab.run_id = "AdaBoost__r0";
  json ada = synthetic_run_json(ab);
  ada["objective_key"] = "ssvm-hinge";
  for (const char* c : {"primal", "dual", "gap"}) ada["curve"].erase(c);
  write_run(tmp.path, ada);

  RunSet set = load_runs({tmp.path.string()});
  REQUIRE(set.problems.size() == 2);
  const Problem& hinge = set.problems[set.runs[0].problem];
  const Problem& square = set.problems[1 - set.runs[0].problem];
  CHECK(hinge.objective_key == "ssvm-hinge");
  CHECK(square.objective_key == "square");
  CHECK(hinge.note.find("apart") != std::string::npos);
  CHECK(square.label.find("square") != std::string::npos);
  CHECK(hinge.solvers == std::vector<std::string>{"AdaBoost", "B[M=1]", "B[M=2]"});
  // the square-loss bound is its own (optimum 5), the hinge one is near 1
  CHECK(square.best_upper == doctest::Approx(5.0).epsilon(1e-2));
  CHECK(hinge.best_upper == doctest::Approx(1.0).epsilon(1e-2));
  Curves c = make_curves(set, hinge, "passes", "primal_subopt", Options{});
  REQUIRE(c.bands.size() == 2);
  CHECK(c.bands[0].solver == "B[M=1]");
  CHECK(c.bands[0].runs == 2);
  CHECK(c.missing == std::vector<std::string>{"AdaBoost"});

  json t = compute_tables(set, "primal_subopt", {0.1}, Options{});
  json ada_js;
  for (const auto& p : t["problems"])
    for (const auto& s : p["solvers"])
      if (s["solver"] == "AdaBoost") ada_js = s;
  REQUIRE(ada_js.is_object());
  CHECK(ada_js["na"] == 1);
  CHECK(ada_js["reach"][0]["passes"]["total"] == 0);
  CHECK(format_cell(ada_js["reach"][0]["passes"]) == "n/a");
  const std::string text = format_text(t);
  CHECK(text.find("apart") != std::string::npos);
  CHECK(std::regex_search(text, std::regex("AdaBoost +passes +n/a")));
}

TEST_CASE("selection by glob, order of the YAML solvers list, --order") {
  TempDir tmp;
  // the experiment file lists C, A, B: that is the display order
  std::ofstream(tmp.path / "exp.yaml") << "name: ordered\ndata: {plugin: x}\nsolvers:\n  - {name: C, plugin: bcfw}\n"
                                          "  - {name: A, plugin: bcfw}\n  - {name: B, plugin: bcfw}\n";
  for (const char* solver : {"A", "B", "C"}) {
    SyntheticRun s;
    s.solver = solver;
    s.run_id = solver;
    json run = synthetic_run_json(s);
    run["config"]["file"] = (tmp.path / "exp.yaml").string();
    write_run(tmp.path / "results", run);
  }
  const std::string dir = (tmp.path / "results").string();
  RunSet set = load_runs({dir});
  CHECK(set.solvers == std::vector<std::string>{"C", "A", "B"});
  Selection sel;
  sel.order = "name";
  select_runs(set, sel);
  CHECK(set.solvers == std::vector<std::string>{"A", "B", "C"});
  sel.order = "B";
  select_runs(set, sel);
  CHECK(set.solvers == std::vector<std::string>{"B", "C", "A"});
  sel.order = "config";
  sel.solvers = {"[AB]"};
  select_runs(set, sel);
  CHECK(set.solvers == std::vector<std::string>{"A", "B"});
  CHECK(set.runs.size() == 2);
  // the experiment file gone (results moved): first appearance, and a run's own solver_index wins
  fs::remove(tmp.path / "exp.yaml");
  RunSet moved = load_runs({dir});
  CHECK(moved.solvers == std::vector<std::string>{"A", "B", "C"});
  Selection none;
  none.problems = {"no-such-problem*"};
  CHECK_THROWS_WITH_AS(select_runs(moved, none), doctest::Contains("--problem no-such-problem*"), std::runtime_error);
  CHECK(run_command("compare", {dir, "--solver", "Z*"}) == 1);
}

TEST_CASE("tables: widths from content, relative or absolute levels, markdown/latex/csv") {
  TempDir tmp;
  for (const char* solver : {"BCFW", "a-solver-with-a-long-name"}) {
    SyntheticRun s;
    s.solver = solver;
    s.run_id = solver;
    s.optimum = 100.0;  // objective near 100: relative and absolute levels differ by 100x
    write_run(tmp.path, synthetic_run_json(s));
  }
  RunSet set = load_runs({tmp.path.string()});
  Options rel, abs;
  abs.levels = Options::Levels::absolute;
  const json tr = compute_tables(set, "primal_subopt", {1e-3}, rel);
  const json ta = compute_tables(set, "primal_subopt", {1e-3}, abs);
  CHECK(tr["problems"][0]["levels"] == "relative");
  CHECK(ta["problems"][0]["levels"] == "absolute");
  // (P - D_best)/|D_best| <= 1e-3 is P - D_best <= ~0.1: reached much earlier than 1e-3 absolute
  const double rel_passes = tr["problems"][0]["solvers"][0]["reach"][0]["passes"]["median"].get<double>();
  const double abs_passes = ta["problems"][0]["solvers"][0]["reach"][0]["passes"]["median"].get<double>();
  CHECK(rel_passes < abs_passes);
  // by hand: BCFW's primal is 100 + exp(-0.1 k), D_best = 100 - tiny: relative 1e-3 at exp(-0.1 k) <= 0.1
  CHECK(rel_passes == doctest::Approx(std::ceil(std::log(10.0) / 0.1)).epsilon(0.05));

  const std::string text = format_tables(tr, TableFormat::text);
  // a text table's columns line up: the rule under the header has the cells' widths
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  bool aligned = false;
  for (std::size_t i = 1; i + 2 < lines.size(); ++i)
    if (lines[i].find("solver") != std::string::npos && lines[i].find("measure") != std::string::npos) {
      const auto col = lines[i].find("measure");
      CHECK(lines[i + 1].substr(col - 2, 3) == "  -");
      CHECK(lines[i + 2].substr(col - 2, 2) == "  ");
      CHECK(lines[i + 2][col] != ' ');
      aligned = true;
    }
  CHECK(aligned);
  const std::string md = format_tables(tr, TableFormat::markdown);
  CHECK(md.find("| solver | measure | eps=0.001 |") != std::string::npos);
  CHECK(md.find("|---|---|---|") != std::string::npos);
  const std::string tex = format_tables(tr, TableFormat::latex);
  CHECK(tex.find("\\begin{tabular}") != std::string::npos);
  CHECK(tex.find("\\toprule") != std::string::npos);
  CHECK(tex.find("primal\\_subopt") != std::string::npos);
  const std::string csv = format_tables(ta, TableFormat::csv);
  CHECK(csv.find("solver,measure,eps=0.001\n") != std::string::npos);
  CHECK(run_command("compare", {tmp.path.string(), "--format", "html"}) == 2);
  CHECK(run_command("compare", {tmp.path.string(), "--levels", "log"}) == 2);
}
