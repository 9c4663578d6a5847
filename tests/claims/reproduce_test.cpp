// The figures a claims file declares, packed (gzip) run records read as plain ones, and
// `dualgap reproduce` end to end on a tiny generated-data folder. The refusals of damaged packed
// records (a gzip bomb, a .gz that is not gzip) are catalog cases (results-gz-*).
#include <fstream>
#include <set>

#include "check/claims.hpp"
#include "core/cli_support.hpp"
#include "run/run_files.hpp"

namespace fs = std::filesystem;
using namespace dualgap;
using dualgap::test::run_cli;
using nlohmann::json;

namespace {

std::string refusal(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  try {
    (void)check::read_claims(p.string());
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

const std::string kHead = "paper: test\nexperiment: e\nclaims:\n  - {id: a, ref: T1, final: {a: MP, metric: gap, below: 1}}\n";

/// A run with passes, oracle_calls, time, primal, gap and test_error columns.
json make_run(const std::string& solver, int repeat, double rate) {
  json passes = json::array(), calls = json::array(), time = json::array(), primal = json::array(), gap = json::array(),
       err = json::array();
  for (int k = 1; k <= 20; ++k) {
    passes.push_back(k);
    calls.push_back(10.0 * k);
    time.push_back(0.1 * k);
    gap.push_back(std::pow(rate, k));
    primal.push_back(1.0 + std::pow(rate, k));
    err.push_back(0.1 + 0.5 * std::pow(rate, k));
  }
  return {{"schema", "dualgap.run/1"},
          {"experiment", "e"},
          {"run_id", solver + "__r" + std::to_string(repeat)},
          {"solver", solver},
          {"status", "budget"},
          {"problem_key", "p"},
          {"config", {{"data", {{"plugin", "synthetic"}}}, {"problem", {{"lambda", 0.01}}}, {"solver", {{"name", solver}}}}},
          {"curve", {{"passes", passes}, {"oracle_calls", calls}, {"time", time}, {"primal", primal}, {"gap", gap}, {"test_error", err}}},
          {"summary", {{"peak_rss_bytes", 5e7}}}};
}

/// Writes `run` as ROOT/<experiment>/<run_id>/run.json, as a runner lays runs out.
void write_run(const fs::path& root, const json& run) {
  const fs::path dir = root / run["experiment"].get<std::string>() / run["run_id"].get<std::string>();
  fs::create_directories(dir);
  std::ofstream(dir / "run.json") << run.dump();
}

void write_runs(const fs::path& root) {
  for (int r = 0; r < 2; ++r)
    for (const auto& [s, rate] : std::vector<std::pair<std::string, double>>{{"MP", 0.5}, {"B", 0.8}})
      write_run(root, make_run(s, r, rate));
}

std::string fmt_run_id(const std::string& loss, int l, int r) {
  return "BCD__" + loss + "__l" + std::to_string(l) + "__r" + std::to_string(r);
}

bool is_png(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  return in.gcount() == 8 && std::string(magic, 8) == std::string("\x89PNG\r\n\x1a\n", 8);
}

}  // namespace

TEST_CASE("figures: a declaration is read with its panels, axes, scales and sentences") {
  test::TempDir dir;
  const fs::path p = dir.path / "claims.yaml";
  std::ofstream(p) << kHead
                   << "figures:\n"
                      "  - file: fig4.png\n    ref: Fig. 4\n    x: oracle_calls\n    x_scale: log\n    columns: 2\n"
                      "    solvers: [MP, B]\n    panels:\n"
                      "      - {y: primal_subopt, paper: P says, ours: we see}\n"
                      "      - {y: test_error, y_scale: log, paper: P2, ours: O2}\n"
                      "      - {y: master_objective, paper: P3, ours: O3}\n";
  const check::ClaimsFile f = check::read_claims(p.string());
  REQUIRE(f.figures.size() == 1);
  const auto& d = f.figures[0];
  CHECK(d.file == "fig4.png");
  CHECK(d.ref == "Fig. 4");
  CHECK(d.x == "oracle_calls");
  CHECK(d.log_x);
  CHECK(d.columns == 2);
  REQUIRE(d.solvers.size() == 2);
  CHECK(d.solvers[0].solver == "MP");
  CHECK(d.solvers[1].solver == "B");
  CHECK(d.solvers[1].where.empty());
  REQUIRE(d.panels.size() == 3);
  CHECK(d.panels[0].log_y);   // a suboptimality: log unless declared otherwise
  CHECK(d.panels[1].log_y);   // declared
  CHECK(!d.panels[2].log_y);  // a raw column: linear
  CHECK(d.panels[0].paper == "P says");
  CHECK(d.panels[0].ours == "we see");
}

TEST_CASE("figures: every mistake of a declaration names the file, the line and what was expected") {
  test::TempDir dir;
  const fs::path p = dir.path / "claims.yaml";
  const std::string path = p.string();
  const std::string fig = "figures:\n  - file: f.png\n    ref: Fig. 1\n    x: passes\n    panels:\n";
  CHECK(refusal(p, kHead + fig + "      - {y: gap, paper: a, ours: b, colour: red}\n")
            .find(path + ":10: figure 'f.png'.panels[0]: unknown key 'colour'") == 0);
  CHECK(refusal(p, kHead + "figures:\n  - file: ../f.png\n    ref: R\n    x: passes\n    panels: [{y: gap, paper: a, ours: b}]\n")
            .find(path + ":6: figures[0].file: expected a file name of letters") == 0);
  CHECK(refusal(p, kHead + "figures:\n  - file: f.gif\n    ref: R\n    x: passes\n    panels: [{y: gap, paper: a, ours: b}]\n")
            .find("ending in .svg or .png, found 'f.gif'") != std::string::npos);
  // a y series as x and an unknown x_scale: the catalog's reproduce-figure-x-role and -scale
  CHECK(refusal(p, kHead + fig + "      - {y: gap, paper: a}\n").find(":10: figure 'f.png'.panels[0]: 'ours' is required (one sentence for the README)") !=
        std::string::npos);
  CHECK(refusal(p, kHead + fig + "      - {y: Gap!, paper: a, ours: b}\n").find("expected a y series (") != std::string::npos);
  CHECK(refusal(p, kHead + "figures:\n  - file: f.png\n    ref: R\n    x: passes\n").find(":6: figures[0]: 'panels' is required") !=
        std::string::npos);
  CHECK(refusal(p, kHead + "figures:\n  - {file: f.png, ref: R, x: passes, panels: [{y: gap, paper: a, ours: b}]}\n"
                           "  - {file: f.png, ref: R, x: passes, panels: [{y: gap, paper: a, ours: b}]}\n")
            .find(":7: figures[1].file: 'f.png' is declared twice") != std::string::npos);
  CHECK(refusal(p, kHead + "figures: []\n").find(":5: figures: expected a list of figures") != std::string::npos);
  for (const std::string columns : {"0", "2.5", "13", "many"})
    CHECK(refusal(p, kHead + "figures:\n  - {file: f.png, ref: R, x: passes, columns: " + columns +
                         ", panels: [{y: gap, paper: a, ours: b}]}\n")
              .find(":6: figure 'f.png'.columns (panels per row): expected") != std::string::npos);
}

TEST_CASE("figures: a raw column a declaration names must be a column of the runs") {
  test::TempDir dir;
  write_runs(dir.path / "results");
  const fs::path p = dir.path / "claims.yaml";
  std::ofstream(p) << kHead << "figures:\n  - {file: f.png, ref: R, x: passes, panels: [{y: gapp, paper: a, ours: b}]}\n";
  const auto f = check::read_claims(p.string());
  const auto set = compare::load_runs({(dir.path / "results").string()});
  try {
    (void)check::figure_runs(set, f, f.figures[0]);
    FAIL("a column no run has was accepted");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(":6: figure 'f.png': 'gapp' is neither a series of compare nor a column of these runs") !=
          std::string::npos);
  }
  // The declared scales replace the renderer's choice, panel by panel.
  std::ofstream(p) << kHead << "figures:\n  - {file: f.png, ref: R, x: passes, x_scale: log, panels: "
                              "[{y: gap, y_scale: linear, paper: a, ours: b}, {y: test_error, y_scale: log, paper: a, ours: b}]}\n";
  const auto g = check::read_claims(p.string());
  const json spec = check::declared_figure_spec(check::figure_runs(set, g, g.figures[0]), g.figures[0], compare::Options{});
  REQUIRE(spec["panels"].size() == 2);
  CHECK(spec["panels"][0]["log_x"] == true);
  CHECK(spec["panels"][0]["log_y"] == false);
  CHECK(spec["panels"][1]["log_y"] == true);
}

TEST_CASE("figures: a declared figure draws a suboptimality at the levels its claims measure it, and says so") {
  // D_best = 10 - 0.5^20, so P - D_best and (P - D_best) / |D_best| differ tenfold.
  test::TempDir dir;
  for (int r = 0; r < 2; ++r)
    for (const auto& [s, rate] : std::vector<std::pair<std::string, double>>{{"MP", 0.5}, {"B", 0.8}}) {
      json run = make_run(s, r, rate);
      json primal = json::array(), dual = json::array();
      for (int k = 1; k <= 20; ++k) {
        primal.push_back(10.0 + std::pow(rate, k));
        dual.push_back(10.0 - std::pow(rate, k));
      }
      run["curve"]["primal"] = primal;
      run["curve"]["dual"] = dual;
      write_run(dir.path / "results", run);
    }
  const auto set = compare::load_runs({(dir.path / "results").string()});
  const fs::path p = dir.path / "claims.yaml";
  std::ofstream(p) << "paper: test\nexperiment: e\nclaims:\n"
                      "  - {id: a, ref: T1, final: {a: MP, metric: primal_subopt, below: 1}}\n"
                      "figures:\n  - {file: f.png, ref: R, x: passes, panels: [{y: primal_subopt, paper: a, ours: b}]}\n";
  const auto f = check::read_claims(p.string());
  const json spec = check::declared_figure_spec(check::figure_runs(set, f, f.figures[0]), f.figures[0], compare::Options{});
  const json& panel = spec["panels"][0];
  CHECK(panel["ylabel"] == compare::axis_label("primal_subopt"));
  CHECK(panel["y"] == "primal_subopt");
  const double expected = (10.0 + std::pow(0.5, 20)) - (10.0 - std::pow(0.5, 20));  // the claim's P - D_best
  bool found = false;
  for (const auto& series : panel["series"])
    if (series["label"] == "MP") {
      CHECK(series["median"].back().get<double>() == doctest::Approx(expected).epsilon(1e-9));
      found = true;
    }
  CHECK(found);
  const auto outcome = check::evaluate(set, f, f.claims[0], false);
  CHECK(outcome.measured.find("1.91e-06") != std::string::npos);
}

TEST_CASE("figures: a figure of task measures draws the runs of different objectives on the same data in one panel") {
  test::TempDir dir;
  // MP and B minimise different objectives on the same data (as AdaBoost.MH and CW do).
  for (const auto& [s, objective] : std::vector<std::pair<std::string, std::string>>{{"MP", "o1"}, {"B", "o2"}}) {
    json run = make_run(s, 0, 0.5);
    run["objective_key"] = objective;
    fs::create_directories(dir.path / "results" / "e" / run["run_id"].get<std::string>());
    std::ofstream(dir.path / "results" / "e" / run["run_id"].get<std::string>() / "run.json") << run.dump();
  }
  const auto set = compare::load_runs({(dir.path / "results").string()});
  REQUIRE(set.problems.size() == 2);  // compare keeps the objectives apart
  const fs::path p = dir.path / "claims.yaml";
  std::ofstream(p) << kHead << "figures:\n  - {file: f.png, ref: R, x: passes, panels: [{y: test_error, paper: a, ours: b}]}\n"
                   << "  - {file: g.png, ref: R, x: passes, panels: [{y: test_error, paper: a, ours: b}, {y: primal, paper: a, ours: b}]}\n";
  const auto f = check::read_claims(p.string());
  const compare::RunSet task = check::figure_runs(set, f, f.figures[0]);
  CHECK(task.problems.size() == 1);
  CHECK(task.problems[0].runs.size() == 2);
  CHECK(check::declared_figure_spec(task, f.figures[0], compare::Options{})["panels"].size() == 1);
  // With an objective's value among the panels, each objective is its own problem.
  CHECK(check::figure_runs(set, f, f.figures[1]).problems.size() == 2);
}

TEST_CASE("figures: each declared series can be drawn at its own setting of a sweep, in one panel") {
  // A lambda sweep on one data set, as MultiBoost-CW's folders run it: MP is drawn at lambda 0.01,
  // B at 0.1, as the claims read them; the runs at the other setting are left out.
  test::TempDir dir;
  for (const double lambda : {0.01, 0.1})
    for (const auto& [s, rate] : std::vector<std::pair<std::string, double>>{{"MP", 0.5}, {"B", 0.8}})
      for (int r = 0; r < 2; ++r) {
        json run = make_run(s, r, rate);
        const std::string setting = lambda == 0.01 ? "0.01" : "0.1";
        run["run_id"] = s + "__lambda=" + setting + "__r" + std::to_string(r);
        run["config"]["problem"]["lambda"] = lambda;
        run["problem_key"] = "p" + setting;
        run["group_key"] = "g" + setting;  // the runner's group key holds the problem, lambda too
        write_run(dir.path / "results", run);
      }
  const auto set = compare::load_runs({(dir.path / "results").string()});
  REQUIRE(set.runs.size() == 8);
  const fs::path p = dir.path / "claims.yaml";
  std::ofstream(p) << kHead
                   << "figures:\n  - file: f.png\n    ref: R\n    x: passes\n"
                      "    solvers: [{solver: B, where: {problem.lambda: 0.1}}, {solver: MP, where: {problem.lambda: 1e-2}}]\n"
                      "    panels: [{y: test_error, paper: a, ours: b}]\n"
                      "  - {file: g.png, ref: R, x: passes, panels: [{y: test_error, paper: a, ours: b}]}\n"
                      "  - {file: h.png, ref: R, x: passes, solvers: [{solver: MP, where: {problem.lambda: 7}}], "
                      "panels: [{y: test_error, paper: a, ours: b}]}\n"
                      "  - {file: i.png, ref: R, x: passes, solvers: [B, {solver: MP, where: {problem.lambda: 0.01}}], "
                      "panels: [{y: test_error, paper: a, ours: b}]}\n";
  const auto f = check::read_claims(p.string());
  REQUIRE(f.figures[0].solvers.size() == 2);
  CHECK(f.figures[0].solvers[0].where.at("problem.lambda") == 0.1);
  const compare::RunSet picked = check::figure_runs(set, f, f.figures[0]);
  REQUIRE(picked.runs.size() == 4);
  for (const auto& r : picked.runs) {
    const double lambda = r.problem_config["problem"]["lambda"].get<double>();
    CHECK(lambda == (r.solver == "MP" ? 0.01 : 0.1));
  }
  CHECK(picked.problems.size() == 1);  // one panel row: the series of one data set
  const json spec = check::declared_figure_spec(picked, f.figures[0], compare::Options{});
  REQUIRE(spec["panels"].size() == 1);
  REQUIRE(spec["panels"][0]["series"].size() == 2);
  CHECK(spec["panels"][0]["series"][0]["label"] == "B");  // the declared order
  // Without a selection every setting is drawn: a row per setting of the sweep.
  const compare::RunSet all = check::figure_runs(set, f, f.figures[1]);
  CHECK(all.runs.size() == 8);
  CHECK(all.problems.size() == 2);
  // A series selected at two settings of one data set would pool them under one label.
  try {
    (void)check::figure_runs(set, f, f.figures[3]);
    FAIL("a series pooling two settings was drawn");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("figure 'i.png': 'B' is selected at two settings on one data set") != std::string::npos);
  }
  // A selection that matches no run of the figure's experiment is an error naming the line.
  try {
    (void)check::figure_runs(set, f, f.figures[2]);
    FAIL("an empty selection was drawn");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("figure 'h.png': no run of the experiment(s) e that its solvers select") !=
          std::string::npos);
  }
}

TEST_CASE("figures: a trade-off figure draws each run as one point at its end, a series per declared loss, in x order") {
  // The sparse BCD paper's Fig. 5: one solver on two losses over three lambdas, two repeats each;
  // each run ends at a row sparsity and a test accuracy that the test knows.
  test::TempDir dir;
  const auto end_of = [](const std::string& loss, int l, int r) {
    const double nnz = (loss == "hinge" ? 10.0 : 20.0) * (3 - l) + r;  // sparser as lambda grows
    const double acc = (loss == "hinge" ? 0.5 : 0.4) + 0.1 * (2 - l) + 0.02 * r;
    return std::pair<double, double>{nnz, acc};
  };
  const std::vector<double> lambdas = {1e-1, 1e-2, 1e-3};
  for (const std::string loss : {"hinge", "logistic"})
    for (int l = 0; l < 3; ++l)
      for (int r = 0; r < 2; ++r) {
        json run = make_run("BCD", r, 0.5);
        const auto [nnz, acc] = end_of(loss, l, r);
        run["run_id"] = fmt_run_id(loss, l, r);
        run["config"]["oracle"] = {{"plugin", loss}};
        run["config"]["problem"]["lambda"] = lambdas[l];
        run["problem_key"] = run["group_key"] = run["objective_key"] = loss + std::to_string(l);
        // The curve ends at (nnz, acc); earlier checkpoints are denser and worse.
        run["curve"]["nnz_rows"] = json::array();
        run["curve"]["test_accuracy"] = json::array();
        for (int k = 1; k <= 20; ++k) {
          run["curve"]["nnz_rows"].push_back(k == 20 ? nnz : 100.0);
          run["curve"]["test_accuracy"].push_back(k == 20 ? acc : 0.1);
        }
        write_run(dir.path / "results", run);
      }
  const auto set = compare::load_runs({(dir.path / "results").string()});
  REQUIRE(set.runs.size() == 12);
  const fs::path p = dir.path / "claims.yaml";
  std::ofstream(p) << kHead
                   << "figures:\n  - file: f.png\n    ref: Fig. 5\n    kind: trade_off\n    x: nnz_rows\n"
                      "    solvers:\n"
                      "      - {solver: BCD, where: {oracle.plugin: logistic}, label: logistic (12)}\n"
                      "      - {solver: BCD, where: {oracle.plugin: hinge}, label: squared hinge (2)}\n"
                      "    panels: [{y: test_accuracy, paper: a, ours: b}, {y: time, y_scale: log, paper: a, ours: b}]\n";
  const auto f = check::read_claims(p.string());
  REQUIRE(f.figures[0].kind == check::FigureDecl::Kind::trade_off);
  const compare::RunSet picked = check::figure_runs(set, f, f.figures[0]);
  CHECK(picked.problems.size() == 1);  // the lambdas share the row of their data
  const json spec = check::declared_figure_spec(picked, f.figures[0], compare::Options{});
  REQUIRE(spec["panels"].size() == 2);
  const json& series = spec["panels"][0]["series"];
  REQUIRE(series.size() == 2);
  CHECK(spec["panels"][0]["steps"] == false);
  CHECK(spec["panels"][1]["log_y"] == true);
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string loss = i == 0 ? "logistic" : "hinge";
    CHECK(series[i]["label"] == (i == 0 ? "logistic (12)" : "squared hinge (2)"));  // the declared order and names
    CHECK(series[i]["runs"] == 6);
    REQUIRE(series[i]["x"].size() == 3);  // a point per lambda, the repeats at their median
    for (int l = 0; l < 3; ++l) {
      const std::size_t at = static_cast<std::size_t>(2 - l);  // ascending row sparsity: the largest lambda first
      const auto [nnz0, acc0] = end_of(loss, l, 0);
      const auto [nnz1, acc1] = end_of(loss, l, 1);
      CHECK(series[i]["x"][at].get<double>() == doctest::Approx((nnz0 + nnz1) / 2));
      CHECK(series[i]["median"][at].get<double>() == doctest::Approx((acc0 + acc1) / 2));
      CHECK(series[i]["lo"][at].get<double>() == doctest::Approx(acc0));
      CHECK(series[i]["hi"][at].get<double>() == doctest::Approx(acc1));
    }
  }
  CHECK(spec["panels"][1]["series"][0]["median"][0].get<double>() == doctest::Approx(2.0));  // time at the end
  // What a trade-off declaration may not say.
  const fs::path q = dir.path / "bad.yaml";
  const std::string head = kHead + "figures:\n  - file: f.png\n    ref: R\n    x: nnz_rows\n";
  const std::string panel = "    panels: [{y: test_accuracy, paper: a, ours: b}]\n";
  CHECK(refusal(q, head + "    kind: scatter\n" + panel).find("figure 'f.png'.kind: expected curves or trade_off, found 'scatter'") !=
        std::string::npos);
  CHECK(refusal(q, head + "    kind: trade_off\n    solvers: [{solver: BCD, label: 'a,b'}]\n" + panel)
            .find("solvers[0]: a series name without ','") != std::string::npos);
  CHECK(refusal(q, head + "    kind: trade_off\n    solvers: [{solver: BCD, label: x}, {solver: C, label: x}]\n" + panel)
            .find("solvers[1].label: 'x' names two entries") != std::string::npos);
  // A curve's x is an x axis: a y series is a trade-off's x only.
  CHECK(refusal(q, kHead + "figures:\n  - {file: f.png, ref: R, x: test_error, panels: [{y: gap, paper: a, ours: b}]}\n")
            .find("expected an x series") != std::string::npos);
}

TEST_CASE("figures: a row is titled by what tells it apart from the figure's other rows") {
  test::TempDir dir;
  // Two experiments (a data set each) at two lambdas: a row is named by its experiment and its
  // lambda, not by the data file the experiment already names or the loss all rows share.
  const auto make = [](const std::string& experiment, const std::string& file, const std::string& loss, double lambda, int k) {
    json run = make_run("BCD", 0, 0.5);
    run["experiment"] = experiment;
    run["run_id"] = "BCD__" + loss + std::to_string(k);
    run["config"]["data"] = {{"plugin", "libsvm"}, {"params", {{"train", "/data/" + file}, {"scale", "none"}}}};
    run["config"]["oracle"] = {{"plugin", loss}};
    run["objective"] = {{"family", "sparse_multiclass"}, {"loss", loss}, {"lambda", lambda}};
    run["problem_key"] = run["objective_key"] = experiment + loss + std::to_string(k);
    return run;
  };
  int k = 0;
  for (const std::string data : {"mnist", "sector"})
    for (double lambda : {1e-3, 1e-5}) write_run(dir.path / "a", make("fig-" + data, data + ".scale", "sq_hinge", lambda, k++));
  compare::RunSet set = compare::load_runs({(dir.path / "a").string()});
  REQUIRE(set.problems.size() == 4);
  std::set<std::string> titles;
  for (const auto& p : set.problems) titles.insert(p.title);
  CHECK(titles == std::set<std::string>{"fig-mnist | lambda=0.001", "fig-mnist | lambda=1e-05", "fig-sector | lambda=0.001",
                                        "fig-sector | lambda=1e-05"});
  // the label names all of it, the data file read from run.json's data params too
  CHECK(set.problems[0].label.find("libsvm(mnist.scale)") != std::string::npos);
  // a declared figure's panels carry the titles, laid out in the declared columns
  const fs::path p = dir.path / "claims.yaml";
  std::ofstream(p) << kHead << "figures:\n  - {file: f.png, ref: R, x: passes, columns: 2, experiments: [fig-mnist, fig-sector],\n"
                      "     panels: [{y: gap, paper: a, ours: b}]}\n";
  const auto f = check::read_claims(p.string());
  const json spec = check::declared_figure_spec(check::figure_runs(set, f, f.figures[0]), f.figures[0], compare::Options{});
  CHECK(spec["columns"] == 2);
  std::set<std::string> drawn;
  for (const auto& panel : spec["panels"]) drawn.insert(panel["title"].get<std::string>());
  CHECK(drawn == titles);

  // Rows keyed by their data (a trade-off's, a figure of task measures): a row holds several
  // losses, so its title names its data only, never one run's objective.
  compare::RunSet rows;
  for (const std::string data : {"mnist", "sector"})
    for (const std::string loss : {"sq_hinge", "logistic"}) {
      rows.runs.push_back(set.runs.front());
      compare::Run& r = rows.runs.back();
      r.experiment = "fig";
      r.problem_config = make("fig", data + ".scale", loss, 1e-3, 0)["config"];
      r.objective = {{"family", "sparse_multiclass"}, {"loss", loss}, {"lambda", 1e-3}};
      r.problem_key = data;
    }
  compare::group_runs(rows);
  REQUIRE(rows.problems.size() == 2);
  CHECK(rows.problems[0].title == "mnist.scale");
  CHECK(rows.problems[1].title == "sector.scale");

  // Rows no stated fact tells apart keep a short hash of their key, so they still differ.
  for (auto& r : rows.runs) {
    r.problem_config["data"]["params"]["train"] = "/data/same.scale";
    r.objective["loss"] = "sq_hinge";
  }
  compare::group_runs(rows);
  REQUIRE(rows.problems.size() == 2);
  CHECK(rows.problems[0].title.size() == 10);  // "[" 8 hex digits "]"
  CHECK(rows.problems[0].title.front() == '[');
  CHECK(rows.problems[0].title != rows.problems[1].title);
}

TEST_CASE("packed runs: compare, check and status read run.json.gz as they read run.json") {
  test::TempDir dir;
  const fs::path plain = dir.path / "plain", packed = dir.path / "packed";
  write_runs(plain);
  // a saved iterate is not packed
  {
    json run = make_run("MP", 9, 0.5);
    run["iterates"] = {{"mode", "final"}, {"model", "w"}, {"saved", json::array()}};
    fs::create_directories(plain / "e" / "MP__r9");
    std::ofstream(plain / "e" / "MP__r9" / "run.json") << run.dump();
  }
  auto r = run_cli("results pack " + plain.string() + " " + packed.string());
  REQUIRE(r.code == 0);
  CHECK(r.output.find("packed 5 run records") != std::string::npos);
  REQUIRE(fs::exists(packed / "e" / "MP__r0" / "run.json.gz"));
  CHECK(!fs::exists(packed / "e" / "MP__r0" / "run.json"));
  const RunFile back = read_run_file((packed / "e" / "MP__r9" / "run.json.gz").string(), CurveMode::document);
  CHECK(back.doc["iterates"].is_null());
  CHECK(back.doc["curve"]["gap"].size() == 20);

  const fs::path claims = dir.path / "claims.yaml";
  std::ofstream(claims) << "paper: test\nexperiment: e\nclaims:\n"
                           "  - {id: a, ref: T1, fewer: {a: MP, b: B, to: {gap: 1e-2}}}\n"
                           "  - {id: b, ref: T1, final: {a: MP, metric: test_error, below: 0.2}}\n";
  const std::vector<std::string> commands = {"check {} --claims " + claims.string() + " --format markdown",
                                             "compare {} --y gap", "compare {} --format csv", "status {}"};
  for (const std::string& cmd : commands) {
    CAPTURE(cmd);
    const auto at = cmd.find("{}");
    const auto a = run_cli(cmd.substr(0, at) + plain.string() + cmd.substr(at + 2));
    const auto b = run_cli(cmd.substr(0, at) + packed.string() + cmd.substr(at + 2));
    CHECK(a.code == b.code);
    std::string expected = a.output;
    for (std::size_t i = expected.find(plain.string()); i != std::string::npos; i = expected.find(plain.string(), i))
      expected.replace(i, plain.string().size(), packed.string());
    CHECK(b.output == expected);
  }
  // evaluate does not write into a packed record
  const auto ev = run_cli("evaluate " + (packed / "e" / "MP__r9").string());
  CHECK(ev.code == 1);
  CHECK(ev.output.find("MP__r9/run.json.gz: a packed run record (run.json.gz) is not re-scored in place") != std::string::npos);

  // Packing again into the same folder rewrites it; a folder holding a record the pack would not
  // rewrite is refused before anything is written (a stale run would be read beside the new).
  CHECK(run_cli("results pack " + plain.string() + " " + packed.string()).code == 0);
  r = run_cli("results pack " + (plain / "e").string() + " " + packed.string());
  CHECK(r.code == 1);
  CHECK(r.output.find("which this pack does not rewrite") != std::string::npos);
  CHECK(!fs::exists(packed / "MP__r0"));
}

TEST_CASE("reproduce: runs a folder, checks it, draws its figure, shows the README diff; --write makes it quiet") {
  test::TempDir dir;
  const fs::path exps = dir.path / "experiments", folder = exps / "tiny";
  fs::create_directories(folder);
  std::ofstream(folder / "tiny.yaml") << "name: tiny\n"
                                         "data: {plugin: synthetic_multiclass, n: 60, n_test: 30, d: 5, K: 3}\n"
                                         "oracle: {plugin: multiclass}\nproblem: {lambda: 1/n}\n"
                                         "solvers:\n  - {name: BCFW, plugin: bcfw}\n"
                                         "stop: {max_passes: 20}\nrecord: {every: 1}\nrepeats: 3\nseed: 0\n";
  std::ofstream(folder / "claims.yaml")
      << "paper: tiny\nexperiment: tiny\nci:\n  - file: tiny.yaml\n    set: [repeats=2, stop.max_passes=4]\n"
         "claims:\n  - {id: gap-small, ref: Fig. 1, final: {a: BCFW, metric: gap, below: 1e3}}\n"
         "figures:\n  - file: fig1.png\n    ref: Fig. 1\n    x: passes\n    panels:\n"
         "      - {y: gap, paper: the gap falls, ours: it falls too}\n";
  std::ofstream(folder / "README.md") << "# tiny\n\nText before.\n";
  std::ofstream(exps / "README.md") << "# index\n\n<!-- figures:begin -->\n<!-- figures:end -->\n";
  const std::string out = (dir.path / "runs").string();

  auto r = run_cli("reproduce " + folder.string() + " --scale ci --out " + out);
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(is_png(fs::path(out) / "tiny" / "figures" / "fig1.png"));
  CHECK(r.output.find("+<!-- reproduce:begin -->") != std::string::npos);
  CHECK(r.output.find("+![Fig. 1](fig1.png)") != std::string::npos);
  CHECK(r.output.find("+- **duality gap P - D**. Paper: The gap falls. Ours: It falls too.") != std::string::npos);
  CHECK(r.output.find("| gap-small") != std::string::npos);
  // not drawn beside the README yet: the index says so rather than showing a broken image
  CHECK(r.output.find("+| [tiny](tiny/) | Fig. 1 | Fig. 1: not drawn yet") != std::string::npos);
  // 2 repeats at CI scale, not the YAML's 3
  int runs = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) runs += e.path().filename() == "run.json";
  CHECK(runs == 2);

  r = run_cli("reproduce " + folder.string() + " --scale ci --out " + out + " --write");
  REQUIRE(r.code == 0);
  CHECK(is_png(folder / "fig1.png"));
  std::ifstream in(folder / "README.md");
  const std::string readme((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(readme.rfind("# tiny\n\nText before.\n", 0) == 0);
  CHECK(readme.find("<!-- reproduce:end -->") != std::string::npos);
  CHECK(r.output.find("+| [tiny](tiny/) | Fig. 1 | <img src=\"tiny/fig1.png\"") != std::string::npos);

  r = run_cli("reproduce " + folder.string() + " --scale ci --out " + out);
  CHECK(r.code == 0);
  CHECK(r.output.find("@@") == std::string::npos);
  CHECK(r.output.find("the README section is as committed") != std::string::npos);

  // the same from the recorded runs, packed: what regenerates a committed folder
  REQUIRE(run_cli("results pack " + out + "/tiny " + (dir.path / "ref").string()).code == 0);
  r = run_cli("reproduce " + folder.string() + " --from " + (dir.path / "ref").string() + " --figures " +
              (dir.path / "figs").string());
  CHECK(r.code == 0);
  CHECK(is_png(dir.path / "figs" / "fig1.png"));
  CHECK(r.output.find("+Generated by `dualgap reproduce experiments/tiny --from ") != std::string::npos);

  // The data an experiment names under ${DUALGAP_DATA} (in a flow mapping, as the folders write
  // it) are fetched when missing, through `data fetch`: here a name the registry does not know.
  const fs::path needs = exps / "needs";
  fs::create_directories(needs);
  std::ofstream(needs / "a.yaml") << "name: needs\ndata: {plugin: dense_text, train: ${DUALGAP_DATA}/nosuchdata/train.txt}\n"
                                     "oracle: {plugin: multiclass}\nproblem: {lambda: 1}\nsolvers: [{name: B, plugin: bcfw}]\n";
  std::ofstream(needs / "claims.yaml") << "paper: p\nexperiment: needs\nclaims:\n  - {id: a, ref: R, final: {a: B, metric: gap, below: 1}}\n";
  fs::create_directories(dir.path / "data");
  r = run_cli("reproduce " + needs.string() + " --out " + out, "DUALGAP_DATA=" + (dir.path / "data").string());
  CHECK(r.output.find("reproduce: fetching nosuchdata into") != std::string::npos);
  CHECK(r.code == 2);

  // bad usage
  CHECK(run_cli("reproduce " + dir.path.string()).code == 2);
  CHECK(run_cli("reproduce " + folder.string() + " --from x --scale ci").code == 2);
}

TEST_CASE("reproduce: at full scale it runs the files claims.yaml's protocol lists, and no other") {
  test::TempDir dir;
  const fs::path folder = dir.path / "experiments" / "two";
  fs::create_directories(folder);
  const std::string body = "data: {plugin: synthetic_multiclass, n: 40, n_test: 20, d: 4, K: 3}\n"
                           "oracle: {plugin: multiclass}\nproblem: {lambda: 1/n}\n"
                           "solvers:\n  - {name: BCFW, plugin: bcfw}\nstop: {max_passes: 3}\nrepeats: 2\nseed: 0\n";
  std::ofstream(folder / "a.yaml") << "name: two-a\n" << body;
  std::ofstream(folder / "stray.yaml") << "name: two-stray\n" << body;  // dropped in the folder, not the protocol
  const std::string claims = "paper: p\nexperiment: two-a\nclaims:\n  - {id: a, ref: R, final: {a: BCFW, metric: gap, below: 1e9}}\n";
  const std::string out = (dir.path / "runs").string();
  const auto reproduce = [&](const std::string& extra) { return run_cli("reproduce " + folder.string() + " --out " + out + extra); };

  // two experiment files and no list: refused before anything runs, naming the files
  std::ofstream(folder / "claims.yaml") << claims;
  auto r = reproduce("");
  CHECK(r.code == 2);
  CHECK(r.output.find("claims.yaml: no 'protocol' list, and the folder holds 2 experiment files (a.yaml, stray.yaml)") !=
        std::string::npos);
  CHECK(!fs::exists(fs::path(out) / "two"));

  // a listed file that is not there
  std::ofstream(folder / "claims.yaml") << "protocol: [a.yaml, gone.yaml]\n" << claims;
  r = reproduce("");
  CHECK(r.code == 2);
  CHECK(r.output.find("protocol names 'gone.yaml', which is not a file of") != std::string::npos);
  CHECK(!fs::exists(fs::path(out) / "two"));

  // the protocol runs, two at once with --jobs; the stray file does not
  std::ofstream(folder / "claims.yaml") << "protocol: [a.yaml]\n" << claims;
  r = reproduce(" --jobs 2");
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("2 runs, 2 at once") != std::string::npos);
  CHECK(fs::exists(fs::path(out) / "two" / "two-a"));
  CHECK(!fs::exists(fs::path(out) / "two" / "two-stray"));

  // --jobs is a run's option, not --from's
  CHECK(run_cli("reproduce " + folder.string() + " --from " + out + "/two --jobs 2").code == 2);
}
