// `dualgap check` on hand-made run.json files whose verdicts are worked out by hand.
#include <fstream>
#include <set>

#include <yaml-cpp/yaml.h>

#include "check/claims.hpp"
#include "core/cli_support.hpp"

namespace fs = std::filesystem;
using namespace dualgap;
using dualgap::test::run_cli;
using nlohmann::json;

namespace {

/// One run: `x` (oracle_calls = passes x 10, time = passes x 0.1) and `y` columns given per
/// checkpoint; `split` is the data split (problem_key).
json make_run(const std::string& experiment, const std::string& solver, int repeat, const std::vector<double>& gap,
              const std::vector<double>& test_error, double lambda = 0.01, const std::string& split = "") {
  json passes = json::array(), calls = json::array(), time = json::array(), otime = json::array(), primal = json::array();
  for (std::size_t k = 0; k < gap.size(); ++k) {
    passes.push_back(k + 1);
    calls.push_back(10.0 * (k + 1));
    time.push_back(0.1 * (k + 1));
    otime.push_back(0.02 * (k + 1));
    primal.push_back(1.0 + gap[k]);
  }
  const std::string key = split.empty() ? "split" + std::to_string(repeat) : split;
  return {{"schema", "dualgap.run/1"},
          {"experiment", experiment},
          {"run_id", solver + "__r" + std::to_string(repeat) + "__l" + std::to_string(lambda)},
          {"solver", solver},
          {"status", "budget"},
          {"problem_key", key + "-" + std::to_string(lambda)},
          {"group_key", "g-" + std::to_string(lambda)},
          {"config",
           {{"data", {{"plugin", "synthetic"}}}, {"problem", {{"lambda", lambda}}}, {"solver", {{"name", solver}}}}},
          {"curve",
           {{"passes", passes},
            {"oracle_calls", calls},
            {"time", time},
            {"oracle_time", otime},
            {"primal", primal},
            {"gap", gap},
            {"test_error", test_error}}},
          {"summary", {{"peak_rss_bytes", 5e7}}}};
}

void write(const fs::path& root, const json& run) {
  const fs::path dir = root / run["experiment"].get<std::string>() / run["run_id"].get<std::string>();
  fs::create_directories(dir);
  std::ofstream(dir / "run.json") << run.dump();
}

/// A geometric gap reaching 1e-2 at checkpoint `hit` (1-based) and never below 1e-2 before.
std::vector<double> gap_reaching(int hit, int length) {
  std::vector<double> g;
  for (int k = 1; k <= length; ++k) g.push_back(k < hit ? 0.5 : 0.01 * std::pow(0.5, k - hit));
  return g;
}

struct Fixture {
  test::TempDir dir;
  fs::path results() const { return dir.path / "results"; }
  fs::path claims(const std::string& body, const std::string& name = "claims.yaml") const {
    const fs::path p = dir.path / name;
    std::ofstream(p) << "paper: test\nexperiment: e\nclaims:\n" << body;
    return p;
  }
  std::vector<check::Outcome> evaluate(const fs::path& claims_path, bool ci = false) {
    static check::ClaimsFile file;  // outcomes point into it
    file = check::read_claims(claims_path.string());
    const auto set = compare::load_runs({results().string()});
    std::vector<check::Outcome> out;
    for (const auto& c : file.claims) out.push_back(check::evaluate(set, file, c, ci));
    return out;
  }
};

}  // namespace

TEST_CASE("check: fewer, by medians over repeats, with censored runs as in compare") {
  Fixture f;
  // MP reaches gap 1e-2 at checkpoints 10, 12, 14 (oracle calls 100, 120, 140: median 120);
  // B at 30, 40, 50 (median 400); C never within 25 checkpoints (budget 250).
  for (int r = 0; r < 3; ++r) {
    write(f.results(), make_run("e", "MP", r, gap_reaching(10 + 2 * r, 60), std::vector<double>(60, 0.1)));
    write(f.results(), make_run("e", "B", r, gap_reaching(30 + 10 * r, 60), std::vector<double>(60, 0.1)));
    write(f.results(), make_run("e", "C", r, std::vector<double>(25, 0.5), std::vector<double>(25, 0.1)));
  }
  auto out = f.evaluate(f.claims(R"(
  - {id: two, ref: Fig. 1, fewer: {a: MP, b: B, x: oracle_calls, to: {gap: 1e-2}, by: 2}}
  - {id: four, ref: Fig. 1, fewer: {a: MP, b: B, x: oracle_calls, to: {gap: 1e-2}, by: 4}}
  - {id: censored-b, ref: Fig. 1, fewer: {a: MP, b: C, to: {gap: 1e-2}, by: 2}}
  - {id: censored-b-short, ref: Fig. 1, fewer: {a: MP, b: C, to: {gap: 1e-2}, by: 3}}
  - {id: censored-a, ref: Fig. 1, fewer: {a: C, b: MP, to: {gap: 1e-2}, by: 1}}
  - {id: nobody, ref: Fig. 1, fewer: {a: MP, b: Nobody, to: {gap: 1e-2}}}
  - {id: time, ref: Fig. 2, scale: full, faster: {a: MP, b: B, to: {gap: 1e-2}, by: 3}}
)"));
  REQUIRE(out.size() == 7);
  CHECK(out[0].verdict == check::Verdict::holds);  // 400 / 120 = 3.3
  CHECK(out[0].measured.find("ratio 3.3x") != std::string::npos);
  CHECK(out[0].measured.find("120 [100, 140] 3/3") != std::string::npos);
  CHECK(out[1].verdict == check::Verdict::fails);  // 3.3 < 4
  CHECK(out[2].verdict == check::Verdict::holds);  // > 250 / 120 = 2.08 >= 2
  CHECK(out[2].measured.find("ratio > 2.1x") != std::string::npos);
  CHECK(out[3].verdict == check::Verdict::not_measurable);  // > 2.08 cannot show 3
  CHECK(out[4].verdict == check::Verdict::fails);           // C > 250 while MP needs 120: < 0.48
  CHECK(out[5].verdict == check::Verdict::not_measurable);
  CHECK(out[6].verdict == check::Verdict::holds);  // time 4.0 / 1.2 s
  auto ci = f.evaluate(f.dir.path / "claims.yaml", true);
  CHECK(ci[6].verdict == check::Verdict::skipped);
}

TEST_CASE("check: lower_final at iterations, order, share, final, selectors") {
  Fixture f;
  for (int r = 0; r < 3; ++r) {
    // test error per checkpoint: CW 0.30 -> 0.10, MB 0.40 -> 0.12 (crosses CW late: 0.09 at the end)
    std::vector<double> cw, mb, ada;
    for (int k = 0; k < 20; ++k) {
      cw.push_back(0.30 - 0.01 * k);
      mb.push_back(k < 19 ? 0.40 - 0.01 * k : 0.05);
      ada.push_back(0.5);
    }
    write(f.results(), make_run("e", "CW", r, std::vector<double>(20, 1), cw, 1e-5));
    write(f.results(), make_run("e", "CW", r, std::vector<double>(20, 1), std::vector<double>(20, 0.9), 1e-3));
    write(f.results(), make_run("e", "MB", r, std::vector<double>(20, 1), mb, 1e-3));
    write(f.results(), make_run("e", "Ada", r, std::vector<double>(20, 1), ada, 1e-3));
    json done = make_run("e", "Done", r, std::vector<double>(10, 1), std::vector<double>(10, 0.2), 1e-3);
    done["status"] = "done";  // converged after 10 passes: its model no longer changes
    write(f.results(), done);
  }
  auto out = f.evaluate(f.claims(R"(
  - id: early
    ref: Fig. 2
    lower_final: {metric: test_error, a: {solver: CW, where: {problem.lambda: 1e-5}}, b: [{solver: MB, where: {problem.lambda: 1e-3}}, Ada], at: [5, 10]}
  - id: final
    ref: Fig. 2
    lower_final: {metric: test_error, a: {solver: CW, where: {problem.lambda: 1e-5}}, b: [MB]}
  - id: wrong-c
    ref: Fig. 2
    lower_final: {metric: test_error, a: {solver: CW, where: {problem.lambda: 1e-3}}, b: [Ada], at: [5]}
  - id: beyond
    ref: Fig. 2
    lower_final: {metric: test_error, a: {solver: CW, where: {problem.lambda: 1e-5}}, b: [Ada], at: [50]}
  - id: converged
    ref: Fig. 2
    lower_final: {metric: test_error, a: Done, b: [Ada], at: [15]}
  - {id: order, ref: T1, order: {metric: test_error, ascending: [{solver: CW, where: {problem.lambda: 1e-5}}, Ada]}}
  - {id: order-bad, ref: T1, order: {metric: test_error, ascending: [Ada, MB]}}
  - {id: share, ref: S4, share: {a: MB, column: oracle_time, of: time, below: 0.25}}
  - {id: share-high, ref: S4, share: {a: MB, below: 0.1}}
  - {id: memory, ref: S4, final: {a: MB, metric: peak_rss_bytes, below: 1e8}}
  - {id: ext, ref: T2, external: measured by a script}
)"));
  REQUIRE(out.size() == 11);
  CHECK(out[0].verdict == check::Verdict::holds);  // at 5: 0.26 < 0.36, 0.5; at 10: 0.21 < 0.31, 0.5
  CHECK(out[0].measured.find("at passes 5: CW (problem.lambda 1e-05) 0.26") != std::string::npos);
  CHECK(out[1].verdict == check::Verdict::fails);  // final: 0.11 > 0.05
  CHECK(out[2].verdict == check::Verdict::fails);  // 0.9 > 0.5
  CHECK(out[3].verdict == check::Verdict::not_measurable);  // runs stopped by their budget at pass 20
  CHECK(out[4].verdict == check::Verdict::holds);           // converged at 10: 0.2 at 15 < 0.5
  CHECK(out[5].verdict == check::Verdict::holds);
  CHECK(out[6].verdict == check::Verdict::fails);  // Ada 0.5 > MB 0.05
  CHECK(out[7].verdict == check::Verdict::holds);  // 0.2 < 0.25
  CHECK(out[8].verdict == check::Verdict::fails);
  CHECK(out[9].verdict == check::Verdict::holds);
  CHECK(out[10].verdict == check::Verdict::not_measurable);
  CHECK(out[10].reason == "measured by a script");
}

TEST_CASE("check: a target at b's final value, paired by data split") {
  Fixture f;
  // B (the reference) ends at gap 1e-3 after 30 checkpoints (time 3.0 s); A reaches it at 5.
  write(f.results(), make_run("e", "A", 0, gap_reaching(5, 40), std::vector<double>(40, 0.1), 0.01, "s"));
  std::vector<double> b(30, 0.5);
  b.back() = 1e-3;
  write(f.results(), make_run("e", "B", 0, b, std::vector<double>(30, 0.1), 0.01, "s"));
  auto out = f.evaluate(f.claims(R"(
  - {id: bfinal, ref: Fig. 6, faster: {a: A, b: B, x: time, to: {primal: b_final}, rel: 1e-9, by: 5}}
)"));
  // A's primal 1 + 0.01 * 0.5^k reaches 1.001 at checkpoint 9 (time 0.9): 3.0 / 0.9 = 3.3 < 5.
  CHECK(out[0].verdict == check::Verdict::fails);
  CHECK(out[0].measured.find("ratio 3.3x") != std::string::npos);
}

TEST_CASE("check: the command line's verdicts, formats and exit status") {
  Fixture f;
  for (int r = 0; r < 2; ++r) {
    write(f.results(), make_run("e", "MP", r, gap_reaching(10, 30), std::vector<double>(30, 0.1)));
    write(f.results(), make_run("e", "B", r, gap_reaching(25, 30), std::vector<double>(30, 0.2)));
  }
  const auto holds = f.claims(R"(
  - {id: fewer, ref: Fig. 4, text: MP fewer calls, paper: 3x fewer, fewer: {a: MP, b: B, to: {gap: 1e-2}, by: 2}}
  - {id: ext, ref: T2, external: elsewhere}
)");
  auto r = run_cli("check " + f.results().string() + " --claims " + holds.string());
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("[holds] fewer (Fig. 4): MP fewer calls") != std::string::npos);
  CHECK(r.output.find("2 claims: 1 hold, 0 fail, 0 not measurable, 1 measured elsewhere") != std::string::npos);
  CHECK(r.output.find("[measured elsewhere] ext (T2)") != std::string::npos);
  // --strict: an external claim is not a failure, a claim that reads no run is.
  CHECK(run_cli("check " + f.results().string() + " --claims " + holds.string() + " --strict").code == 0);
  const auto unmeasurable = f.claims("  - {id: u, ref: Fig. 4, fewer: {a: MP, b: Nobody, to: {gap: 1e-2}}}\n", "u.yaml");
  CHECK(run_cli("check " + f.results().string() + " --claims " + unmeasurable.string()).code == 0);
  CHECK(run_cli("check " + f.results().string() + " --claims " + unmeasurable.string() + " --strict").code == 1);
  auto md = run_cli("check " + f.results().string() + " --claims " + holds.string() + " --format markdown");
  CHECK(md.output.find("| claim | paper | paper's result | measured | verdict |") != std::string::npos);
  CHECK(md.output.find("| fewer: MP fewer calls | Fig. 4 | 3x fewer | oracle_calls to gap 0.01: MP 100 [100, 100] 2/2; B 250") !=
        std::string::npos);
  CHECK(md.output.find("| **holds** |") != std::string::npos);

  const auto fails = f.claims("  - {id: f, ref: Fig. 4, fewer: {a: MP, b: B, to: {gap: 1e-2}, by: 5}}\n", "f.yaml");
  CHECK(run_cli("check " + f.results().string() + " --claims " + fails.string()).code == 1);
}

TEST_CASE("check: compare --html heads the report with the same verdicts as dualgap check") {
  Fixture f;
  for (int r = 0; r < 2; ++r) {
    write(f.results(), make_run("e", "MP", r, gap_reaching(10, 30), std::vector<double>(30, 0.1)));
    write(f.results(), make_run("e", "B", r, gap_reaching(25, 30), std::vector<double>(30, 0.2)));
  }
  const auto claims = f.claims(R"(
  - {id: fewer-2, ref: Fig. 4, text: MP fewer calls, paper: 3x fewer, fewer: {a: MP, b: B, to: {gap: 1e-2}, by: 2}}
  - {id: fewer-5, ref: Fig. 4, fewer: {a: MP, b: B, to: {gap: 1e-2}, by: 5}}
  - {id: nobody, ref: Fig. 5, fewer: {a: MP, b: Nobody, to: {gap: 1e-2}}}
  - {id: big, ref: Fig. 6, scale: full, fewer: {a: MP, b: B, to: {gap: 1e-2}, by: 2}}
)");
  auto read = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const fs::path html = f.dir.path / "report.html";
  auto r = run_cli("compare " + f.results().string() + " --html " + html.string() + " --claims " + claims.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  std::string page = read(html);
  CHECK(page.find("<section id=\"claims\">") < page.find("id=\"controls\""));  // at the top
  CHECK(page.find("<b>2 hold</b>, <b>1 fail</b>, 1 not measurable, 0 other") != std::string::npos);
  CHECK(page.find("<td>fewer-2</td><td>MP fewer calls</td><td>Fig. 4</td><td>3x fewer</td><td>oracle_calls to gap "
                  "0.01: MP 100 [100, 100] 2/2; B 250") != std::string::npos);
  CHECK(page.find("<td class=\"v fails\">fails</td>") != std::string::npos);
  // The same file evaluated at CI scale: the full-scale claim is shown as such, not evaluated.
  r = run_cli("compare " + f.results().string() + " --html " + html.string() + " --claims " + claims.string() +
              " --claims-scale ci");
  REQUIRE(r.code == 0);
  page = read(html);
  CHECK(page.find("at CI scale: <b>1 hold</b>, <b>1 fail</b>, 1 not measurable, 1 other") != std::string::npos);
  CHECK(page.find("<td class=\"v other\">full scale only</td>") != std::string::npos);
  // --no-claims, and runs no claims file names (no experiments/ folder here): no section.
  REQUIRE(run_cli("compare " + f.results().string() + " --html " + html.string() + " --no-claims").code == 0);
  CHECK(read(html).find("<section id=\"claims\">") == std::string::npos);
  // A claims file that cannot be read leaves the report without claims and says why.
  const auto bad = f.claims("  - {id: a, ref: Fig. 4, fewer: {a: MP, b: B, bye: 2}}\n", "bad.yaml");
  r = run_cli("compare " + f.results().string() + " --html " + html.string() + " --claims " + bad.string());
  CHECK(r.code == 0);
  CHECK(r.output.find("warning: the report shows no claims: ") != std::string::npos);
  CHECK(read(html).find("<section id=\"claims\">") == std::string::npos);
}

TEST_CASE("check: a bad claims file is refused with its line") {
  Fixture f;
  write(f.results(), make_run("e", "MP", 0, gap_reaching(10, 30), std::vector<double>(30, 0.1)));
  const auto bad = f.claims(R"(
  - {id: a, ref: Fig. 4, fewer: {a: MP, b: B, to: {gap: 1e-2}, bye: 2}}
)");
  auto r = run_cli("check " + f.results().string() + " --claims " + bad.string());
  CHECK(r.code == 2);
  CHECK(r.output.find("claims.yaml:5: claim 'a' (fewer): unknown key 'bye'") != std::string::npos);
  const auto no_ref = f.claims("  - {id: a, fewer: {a: MP, b: B, to: {gap: 1e-2}}}\n");
  auto r2 = run_cli("check " + f.results().string() + " --claims " + no_ref.string());
  CHECK(r2.code == 2);
  CHECK(r2.output.find("'ref' (the paper's figure or table) is required") != std::string::npos);
}

TEST_CASE("check: every field of a claims file is typed: file:line and what was expected") {
  Fixture f;
  auto refusal = [&](const std::string& text) {
    const fs::path p = f.dir.path / "typed.yaml";
    std::ofstream(p) << text;
    try {
      (void)check::read_claims(p.string());
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string head = "paper: test\nexperiment: e\nclaims:\n";
  const std::string path = (f.dir.path / "typed.yaml").string();
  // numbers are finite: a NaN bound would make every comparison false
  CHECK(refusal(head + "  - {id: a, ref: T1, final: {a: MP, metric: gap, below: .nan}}\n") ==
        path + ":4: claim 'a' (final).below: expected a finite number, found '.nan'");
  CHECK(refusal(head + "  - {id: a, ref: T1, final: {a: MP, metric: gap, above: -.inf}}\n") ==
        path + ":4: claim 'a' (final).above: expected a finite number, found '-.inf'");
  CHECK(refusal(head + "  - {id: a, ref: T1, fewer: {a: MP, b: B, to: {gap: .NaN}}}\n").find(
            ":4: claim 'a' (fewer).to.gap (a level, or b_final): expected a finite number, found '.NaN'") != std::string::npos);
  CHECK(refusal(head + "  - {id: a, ref: T1, fewer: {a: MP, b: B, to: {gap: 1e-2}, by: 0}}\n").find(
            "by (a ratio): expected a finite number > 0, found '0'") != std::string::npos);
  CHECK(refusal(head + "  - {id: a, ref: T1, fewer: {a: MP, b: B, to: {gap: 1e-2}, by: .inf}}\n").find(
            "by (a ratio): expected a finite number > 0, found '.inf'") != std::string::npos);
  CHECK(refusal(head + "  - {id: a, ref: T1, fewer: {a: MP, b: B, to: {primal: b_final}, rel: -1}}\n").find(
            "rel: expected a finite number >= 0, found '-1'") != std::string::npos);
  // `at` is a value of the x axis: never below 0
  CHECK(refusal(head + "  - {id: a, ref: T1, lower_final: {metric: gap, a: MP, b: [B], at: [-1]}}\n").find(
            ":4: claim 'a' (lower_final).at (values of passes): expected a finite number >= 0, found '-1'") !=
        std::string::npos);
  CHECK(refusal(head + "  - {id: a, ref: T1, order: {metric: gap, ascending: [MP, B], at: [], at_x: time}}\n").find(
            "at (values of time): empty list") != std::string::npos);
  CHECK(refusal(head + "  - {id: a, ref: T1, order: {metric: gap, ascending: [MP, B], strict: maybe}}\n").find(
            ":4: claim 'a' (order).strict: expected true or false, found 'maybe'") != std::string::npos);
  CHECK(refusal(head + "  - {id: a, ref: T1, fewer: {a: MP, b: B, to: {[gap]: 1}}}\n").find(
            ":4: claim 'a' (fewer).to: expected a key name, found a list") != std::string::npos);
  CHECK(refusal(head + "  - {id: a, ref: T1, final: {a: {solver: MP, where: {[k]: 1}}, metric: gap, below: 1}}\n").find(
            "where: expected a key name, found a list") != std::string::npos);
  CHECK(refusal(head + "  - {id: a, ref: T1, final: {a: [[MP]], metric: gap, below: 1}}\n").find(
            "claim 'a' (final).a: expected a series label or {solver, experiment, where}, found a list") != std::string::npos);
  CHECK(refusal(head + "  - {id: [a], ref: T1, external: elsewhere}\n").find(":4: claim 1.id: expected a string, found a list") !=
        std::string::npos);
  CHECK(refusal("ci: 5\n" + head + "  - {id: a, ref: T1, external: x}\n") ==
        path + ":1: ci: expected a list of {file, set}, found '5'");
  CHECK(refusal("ci: [{file: e.yaml, set: a=1}]\n" + head + "  - {id: a, ref: T1, external: x}\n").find(
            ":1: ci[0].set: expected a list of KEY=VALUE, found 'a=1'") != std::string::npos);
  // the experiment files a claims file names are plain names of its folder: it names no path elsewhere
  CHECK(refusal("ci: [{file: ../other/e.yaml}]\n" + head + "  - {id: a, ref: T1, external: x}\n") ==
        path + ":1: ci[0].file: expected a file name of letters, digits, '.', '_', '-' ending in .yaml, found '../other/e.yaml'");
  CHECK(refusal("protocol: [a.yaml, /etc/x.yaml]\n" + head + "  - {id: a, ref: T1, external: x}\n").find(
            ":1: protocol[1]: expected a file name of") != std::string::npos);
  CHECK(refusal("protocol: [a.yaml, .hidden.yaml]\n" + head + "  - {id: a, ref: T1, external: x}\n").find(
            "found '.hidden.yaml'") != std::string::npos);
  CHECK(refusal("protocol: [a.yml]\n" + head + "  - {id: a, ref: T1, external: x}\n").find("ending in .yaml, found 'a.yml'") !=
        std::string::npos);
  CHECK(refusal("protocol: [claims.yaml]\n" + head + "  - {id: a, ref: T1, external: x}\n") ==
        path + ":1: protocol[0]: expected an experiment file, found the claims file itself");
  CHECK(refusal("protocol:\n  - a.yaml\n  - b.yaml\n  - a.yaml\n" + head + "  - {id: a, ref: T1, external: x}\n") ==
        path + ":4: protocol[2]: 'a.yaml' is listed twice");
  CHECK(refusal("protocol: []\n" + head + "  - {id: a, ref: T1, external: x}\n") ==
        path + ":1: protocol: expected a list of the folder's experiment files, found an empty list");
  CHECK(refusal("protocol: a.yaml\n" + head + "  - {id: a, ref: T1, external: x}\n") ==
        path + ":1: protocol: expected a list of the folder's experiment files, found 'a.yaml'");
  // no claims: the file (not line 0) and why
  CHECK(refusal("") == path + ": no claims: the file is empty (expected a mapping with a 'claims' list)");
  CHECK(refusal("# only a comment\n") == path + ": no claims: the file is empty (expected a mapping with a 'claims' list)");
  CHECK(refusal("paper: x\n") == path + ": no claims: 'claims' (a list of claims) is missing");
  CHECK(refusal("paper: x\nclaims: []\n") == path + ":2: no claims: the 'claims' list is empty");
  CHECK(refusal("paper: x\nclaims: 3\n") == path + ":2: claims: expected a list of claims, found '3'");
  CHECK(refusal("- a\n") == path + ":1: claims file: expected a mapping, found a list");
  // a good file still reads
  CHECK(refusal(head + "  - {id: a, ref: T1, order: {metric: gap, ascending: [MP, B], at: [0, 10], strict: yes}}\n").empty());
}

TEST_CASE("check: every experiment folder's claims.yaml reads, with a ci profile") {
  int folders = 0;
  for (const auto& entry : fs::directory_iterator(DUALGAP_TEST_SOURCE_DIR "/experiments")) {
    if (!entry.is_directory()) continue;
    ++folders;
    const fs::path claims = entry.path() / "claims.yaml";
    REQUIRE_MESSAGE(fs::exists(claims), entry.path().string() << " has no claims.yaml");
    check::ClaimsFile file;
    CHECK_NOTHROW(file = check::read_claims(claims.string()));
    CHECK(!file.claims.empty());
    YAML::Node root = YAML::LoadFile(claims.string());
    CHECK_MESSAGE((root["ci"] && root["ci"].IsSequence() && root["ci"].size() > 0), claims.string() << ": no ci profile");
    // what reproduce runs is what the folder holds: a folder of several experiment files lists
    // each in its protocol (none left out, none missing), and each ci file is one of them
    std::set<std::string> yamls;
    for (const auto& e : fs::directory_iterator(entry.path()))
      if (e.path().extension() == ".yaml" && e.path().filename() != "claims.yaml") yamls.insert(e.path().filename().string());
    const std::set<std::string> listed(file.protocol.begin(), file.protocol.end());
    if (yamls.size() > 1) CHECK_MESSAGE(listed == yamls, claims.string() << ": protocol does not list the folder's experiment files");
    if (!listed.empty()) CHECK_MESSAGE(listed == yamls, claims.string() << ": protocol names a file the folder does not hold");
    for (const auto& c : file.ci) CHECK_MESSAGE(yamls.count(c.file) == 1, claims.string() << ": ci names " << c.file);
  }
  CHECK(folders == 18);
}

TEST_CASE("check: a declared table reads each cell's runs at their end, beside the paper's number") {
  Fixture f;
  // Two solvers, three repeats each, at two lambdas: final test errors worked out by hand.
  for (int r = 0; r < 3; ++r) {
    write(f.results(), make_run("e", "A", r, gap_reaching(3, 5), {0.5, 0.4, 0.3, 0.2, 0.10 + 0.01 * r}, 0.01));
    write(f.results(), make_run("e", "A", r, gap_reaching(3, 5), {0.5, 0.4, 0.3, 0.2, 0.30 + 0.02 * r}, 0.001));
    write(f.results(), make_run("e", "B", r, gap_reaching(3, 5), {0.5, 0.4, 0.3, 0.2, 0.20 + 0.04 * r}, 0.01));
  }
  const fs::path p = f.claims(R"Y(  - {id: a, ref: T1, final: {a: A, metric: test_error, below: 1}}
tables:
  - ref: "Table 1"
    caption: "test error (%)"
    y: test_error
    scale: 100
    columns: [A, B]
    rows:
      - name: "lambda 1e-2"
        paper: [10.5, null]
        cells: [{solver: A, where: {problem.lambda: 0.01}}, {solver: B, where: {problem.lambda: 0.01}, stat: mean_std}]
      - name: "all lambdas"
        cells: [{solver: A, stat: min}, {solver: A, stat: max}]
)Y");
  const check::ClaimsFile file = check::read_claims(p.string());
  REQUIRE(file.tables.size() == 1);
  const auto set = compare::load_runs({f.results().string()});
  const std::string md = check::table_markdown(set, file, file.tables[0]);
  INFO(md);
  // A at lambda 1e-2: 10, 11, 12 % -> median 11 [10, 12]; B: 20, 24, 28 % -> 24 +- 4.
  CHECK(md.find("| lambda 1e-2 | 10.5 | 11 [10, 12] | — | 24 ± 4 |") != std::string::npos);
  // over both lambdas A's final errors are 10 ... 34 %.
  CHECK(md.find("| all lambdas | — | 10 | — | 34 |") != std::string::npos);
  CHECK(md.find("|  | A: paper | A: ours | B: paper | B: ours |") != std::string::npos);

  // A cell that selects no run is an error naming the declaration, never an empty cell.
  check::ClaimsFile renamed = file;
  renamed.tables[0].rows[0].cells[1].side.solver = "C";
  CHECK_THROWS_WITH_AS(check::table_markdown(set, renamed, renamed.tables[0]),
                       doctest::Contains("row 'lambda 1e-2', column 'B': no run of solver 'C'"), std::runtime_error);

  // A row whose cells or paper numbers do not match the columns is refused at its line.
  const fs::path bad = f.claims(R"Y(  - {id: a, ref: T1, final: {a: A, metric: test_error, below: 1}}
tables:
  - {ref: T, caption: c, y: test_error, columns: [A, B], rows: [{name: r, cells: [A]}]}
)Y", "bad.yaml");
  CHECK_THROWS_WITH_AS(check::read_claims(bad.string()), doctest::Contains("bad.yaml:6: tables[0].rows[0].cells: expected a list of 2 cells"),
                       std::runtime_error);
  const fs::path bad_stat = f.claims(R"Y(  - {id: a, ref: T1, final: {a: A, metric: test_error, below: 1}}
tables:
  - {ref: T, caption: c, y: test_error, stat: mode, columns: [A], rows: [{name: r, cells: [A]}]}
)Y", "bad_stat.yaml");
  CHECK_THROWS_WITH_AS(check::read_claims(bad_stat.string()), doctest::Contains("expected median_range, median, mean_std, min or max"),
                       std::runtime_error);
}
