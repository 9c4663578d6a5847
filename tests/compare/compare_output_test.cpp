// dualgap compare outputs: the HTML report opened in headless Chromium, matplotlib figures.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "dualgap/json.hpp"

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

namespace fs = std::filesystem;

namespace {

const char* kChromium = "/usr/bin/chromium";
const char* kPython = "/usr/bin/python3";
const std::vector<std::string> kSolvers = {"BCFW", "MP-BCFW", "MP-BCFW-avg"};

// A missing tool fails the test on CI and is reported (not silently passed) elsewhere.
bool require_tool(const std::string& path, const std::string& why) {
  if (fs::exists(path)) return true;
  if (std::getenv("CI")) {
    FAIL_CHECK(path << " is missing: needed for " << why);
  } else {
    MESSAGE("SKIPPED: " << path << " is missing, cannot check " << why << " (fails when CI is set)");
  }
  return false;
}

// Width and height from the PNG IHDR chunk; {0,0} when not a PNG.
std::pair<unsigned, unsigned> png_size(const fs::path& p) {
  const std::string b = read_file(p);
  if (b.size() < 24 || b.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || b.compare(12, 4, "IHDR") != 0) return {0, 0};
  auto be32 = [&](std::size_t o) {
    return (unsigned(static_cast<unsigned char>(b[o])) << 24) | (unsigned(static_cast<unsigned char>(b[o + 1])) << 16) |
           (unsigned(static_cast<unsigned char>(b[o + 2])) << 8) | unsigned(static_cast<unsigned char>(b[o + 3]));
  };
  return {be32(16), be32(20)};
}

// Standard deviation of the RGB pixels: 0 for a single-colour image.
double png_pixel_spread(const fs::path& p) {
  const std::string out = run_capture(std::string(kPython) +
                                      " -c \"import sys, matplotlib.image as m; a = m.imread(sys.argv[1]); "
                                      "print(float(a[..., :3].std()))\" " + p.string() + " 2>/dev/null");
  return out.empty() ? -1.0 : std::atof(out.c_str());
}

void make_results(const fs::path& root, const std::vector<std::string>& solvers = kSolvers) {
  for (std::size_t s = 0; s < solvers.size(); ++s)
    for (int r = 0; r < 3; ++r) {
      SyntheticRun run;
      run.experiment = "outputs";
      run.solver = solvers[s];
      run.run_id = solvers[s] + "-" + std::to_string(r);
      run.seed = r;
      run.rate = 0.05 * (s + 1);
      run.checkpoints = 120;
      write_run(root, synthetic_run_json(run));
    }
}

// Opens `url` in headless Chromium without background network services and with a fresh
// profile (the report must render offline, with nothing cached from an earlier page) and returns
// the DOM after the page's scripts ran.
std::string chromium_dom(const std::string& url, const std::string& extra = "") {
  TempDir profile;
  return run_capture(std::string(kChromium) +
                     " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                     "--disable-background-networking --disable-component-update --disable-sync "
                     "--window-size=1400,1000 --user-data-dir=" + profile.path.string() + " " + extra +
                     " --dump-dom '" + url + "' 2>/dev/null");
}

std::string attribute(const std::string& dom, const std::string& element_id, const std::string& name) {
  auto at = dom.find("id=\"" + element_id + "\"");
  if (at == std::string::npos) return "";
  auto open = dom.rfind('<', at);
  auto close = dom.find('>', at);
  std::smatch m;
  const std::string tag = dom.substr(open, close - open);
  if (std::regex_search(tag, m, std::regex(name + "=\"([^\"]*)\""))) return m[1].str();
  return "";
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Runs of one problem whose primal suboptimality goes from 1e-1 down to 1e-3 (dual fixed at 1).
void make_decade_results(const fs::path& root) {
  const std::vector<double> subopt = {0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001};
  for (const char* solver : {"A", "B"}) {
    nlohmann::json primal = nlohmann::json::array(), dual = nlohmann::json::array(), passes = nlohmann::json::array();
    for (std::size_t k = 0; k < subopt.size(); ++k) {
      primal.push_back(1.0 + subopt[k] * (solver[0] == 'A' ? 1.0 : 1.0));
      dual.push_back(1.0);
      passes.push_back(static_cast<double>(k + 1));
    }
    nlohmann::json run = {{"schema", "dualgap.run/1"}, {"experiment", "decades"}, {"run_id", solver},
                          {"solver", solver}, {"status", "done"}, {"problem_key", "P"},
                          {"curve", {{"passes", passes}, {"primal", primal}, {"dual", dual}}}};
    write_run(root, run);
  }
}

// The JSON the report embeds for its script.
nlohmann::json report_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"dualgap-data\">";
  const auto a = page.find(open);
  const auto b = page.find("</script>", a);
  if (a == std::string::npos || b == std::string::npos) return nullptr;
  return nlohmann::json::parse(page.substr(a + open.size(), b - a - open.size()));
}

// Runs of two problems (P1, P2), kSolvers x 3 repeats; P2's solvers converge twice as fast.
void make_two_problems(const fs::path& root) {
  for (const char* problem : {"P1", "P2"})
    for (std::size_t s = 0; s < kSolvers.size(); ++s)
      for (int r = 0; r < 3; ++r) {
        SyntheticRun run;
        run.experiment = "two";
        run.problem_key = problem;
        run.solver = kSolvers[s];
        run.run_id = std::string(problem) + "-" + kSolvers[s] + "-" + std::to_string(r);
        run.seed = r;
        run.rate = 0.05 * (s + 1) * (problem[1] == '2' ? 2 : 1);
        run.checkpoints = 120;
        write_run(root, synthetic_run_json(run));
      }
}

// Each run's final values recomputed from its run.json, independently of compare: the primal
// suboptimality (last primal - D_best) / |D_best| with D_best the highest dual of the problem's
// runs, the gap / |D_best| (relative levels), the last test error and the last time.
// run_id -> quantity -> value.
std::map<std::string, std::map<std::string, double>> finals_from_files(const fs::path& root) {
  std::map<std::string, std::vector<nlohmann::json>> by_problem;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename() == "run.json") {
      auto j = nlohmann::json::parse(read_file(e.path()));
      by_problem[j["problem_key"].get<std::string>()].push_back(std::move(j));
    }
  auto last = [](const nlohmann::json& column) {
    double v = NAN;
    for (const auto& x : column)
      if (x.is_number()) v = x.get<double>();
    return v;
  };
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& [key, runs] : by_problem) {
    double d_best = -INFINITY;
    for (const auto& r : runs)
      for (const auto& d : r["curve"]["dual"])
        if (d.is_number()) d_best = std::max(d_best, d.get<double>());
    for (const auto& r : runs) {
      const auto& c = r["curve"];
      out[r["run_id"].get<std::string>()] = {{"primal_subopt", (last(c["primal"]) - d_best) / std::abs(d_best)},
                                             {"gap", last(c["gap"]) / std::abs(d_best)},
                                             {"test_error", last(c["test_error"])},
                                             {"time", last(c["time"])}};
    }
  }
  return out;
}

// Every point of a finals_json problem is the run's recomputed final value, every run of the
// problem is a point of each panel, and each bar is the median of its points.
void check_finals(const nlohmann::json& problem, const std::map<std::string, std::map<std::string, double>>& expected,
                  std::size_t runs) {
  std::vector<std::string> quantities;
  for (const auto& panel : problem["panels"]) quantities.push_back(panel["quantity"].get<std::string>());
  CHECK(quantities == std::vector<std::string>{"primal_subopt", "gap", "test_error", "time"});
  for (const auto& panel : problem["panels"]) {
    const std::string q = panel["quantity"].get<std::string>();
    std::size_t points = 0;
    for (const auto& s : panel["series"]) {
      std::vector<double> values;
      REQUIRE(s["runs"].size() == s["values"].size());
      for (std::size_t i = 0; i < s["runs"].size(); ++i) {
        const std::string id = s["runs"][i].get<std::string>();
        INFO(q << " of " << id);
        REQUIRE(expected.count(id));
        CHECK(s["values"][i].get<double>() == doctest::Approx(expected.at(id).at(q)).epsilon(1e-12));
        CHECK(id.find(s["label"].get<std::string>()) != std::string::npos);
        values.push_back(expected.at(id).at(q));
        ++points;
      }
      CHECK(s["median"].get<double>() == doctest::Approx(median_of(values)).epsilon(1e-12));
      for (const auto& o : s["offsets"]) CHECK(std::abs(o.get<double>()) <= 0.25);
    }
    CHECK(points == runs);
  }
}

}  // namespace

TEST_CASE("HTML report and --finals: the final values are the runs' own; the profiles are profile.cpp's") {
  TempDir tmp;
  const fs::path results = tmp.path / "results";
  make_two_problems(results);
  const auto expected = finals_from_files(results);
  REQUIRE(expected.size() == 18);
  const fs::path html = tmp.path / "report.html";
  REQUIRE(run_command("compare", {results.string(), "--html", html.string(), "--x", "time"}) == 0);
  const std::string page = read_file(html);
  const nlohmann::json data = report_data(page);
  REQUIRE(data["problems"].size() == 2);
  for (std::size_t pi = 0; pi < 2; ++pi) {
    CAPTURE(pi);
    check_finals(data["problems"][pi]["finals"], expected, 9);
    for (std::size_t k = 0; k < 4; ++k) CHECK(page.find(fmt::format("id=\"strip-{}-{}\"", pi, k)) != std::string::npos);
  }

  // --json with --finals holds the same numbers; --finals --figure draws them
  const fs::path tables_path = tmp.path / "tables.json";
  REQUIRE(run_command("compare", {results.string(), "--json=" + tables_path.string(), "--finals"}) == 0);
  const auto tables = nlohmann::json::parse(read_file(tables_path));
  for (std::size_t pi = 0; pi < 2; ++pi) {
    check_finals(tables["finals"]["problems"][pi], expected, 9);
    CHECK(tables["finals"]["problems"][pi] == data["problems"][pi]["finals"]);
  }
  if (fs::exists(kPython)) {
    const fs::path png = tmp.path / "finals.png";
    CHECK(run_command("compare", {results.string(), "--finals", "--figure", png.string(), "--style", "screen"}) == 0);
    CHECK(png_pixel_spread(png) > 0.02);
  }

  // the profiles section: profile_json and profile_panels of the report's x and y, as --profile
  // computes them; each line is the profile's step function at its breakpoints
  RunSet set = load_runs({results.string()});
  ProfileOptions po;
  po.measure = "time";
  po.y = "primal_subopt";
  po.tol = 1e-3;
  const Profile pr = compute_profile(set, po, Options{});
  REQUIRE(!data["profile"].is_null());
  CHECK(data["profile"]["profile"] == profile_json(pr));
  CHECK(data["profile"]["panels"] == profile_panels(pr));
  const auto& panels = data["profile"]["panels"];
  REQUIRE(panels.size() == 2);
  CHECK(!panels[0]["series"].empty());
  for (std::size_t k = 0; k < 2; ++k)
    for (const auto& line : panels[k]["series"]) {
      const auto at = std::find(pr.solvers.begin(), pr.solvers.end(), line["label"].get<std::string>());
      REQUIRE(at != pr.solvers.end());
      const std::size_t s = at - pr.solvers.begin();
      for (std::size_t i = 0; i < line["x"].size(); ++i)
        CHECK(line["median"][i].get<double>() ==
              profile_fraction(k == 0 ? pr.ratios_of(s) : pr.costs_of(s), 2, line["x"][i].get<double>()));
    }
  CHECK(page.find("id=\"profile-0\"") != std::string::npos);
  CHECK(page.find("Cost: time") != std::string::npos);
  CHECK(page.find("0.001 (relative levels)") != std::string::npos);  // the caption's tolerance and levels
  // a --profile-tol given reaches the report
  REQUIRE(run_command("compare", {results.string(), "--html", html.string(), "--x", "time", "--profile-tol", "0.05"}) == 0);
  po.tol = 0.05;
  CHECK(report_data(read_file(html))["profile"]["profile"] == profile_json(compute_profile(set, po, Options{})));

  // one problem: no profiles, and the report says why
  REQUIRE(run_command("compare", {results.string(), "--html", html.string(), "--problem", "P1"}) == 0);
  const std::string one = read_file(html);
  CHECK(report_data(one)["profile"].is_null());
  CHECK(one.find("id=\"profiles-none\"") != std::string::npos);
  CHECK(one.find("drawn from 2 problems on; these runs have 1") != std::string::npos);
  CHECK(one.find("id=\"profile-0\"") == std::string::npos);
}

TEST_CASE("final values: a convergence measure that spans decades is on a log axis, with its zeros on a floor") {
  // final primal suboptimality P - D_best (D_best = 1): A 1e-1, B 1e-6, C 0 (C's primal is the bound)
  TempDir tmp;
  const std::vector<std::pair<const char*, double>> finals = {{"A", 1e-1}, {"B", 1e-6}, {"C", 0.0}};
  for (const auto& [solver, last] : finals) {
    nlohmann::json run = {{"schema", "dualgap.run/1"}, {"experiment", "floor"}, {"run_id", solver},
                          {"solver", solver}, {"status", "done"}, {"problem_key", "P"},
                          {"curve", {{"passes", {1, 2}}, {"primal", {1.5, 1.0 + last}}, {"dual", {0.5, 1.0}}}}};
    write_run(tmp.path, run);
  }
  const RunSet set = load_runs({tmp.path.string()});
  Options absolute;
  absolute.levels = Options::Levels::absolute;
  const auto f = finals_json(compute_tables(set, "primal_subopt", {}, absolute));
  const auto& panel = f["problems"][0]["panels"][0];
  REQUIRE(panel["quantity"] == "primal_subopt");
  CHECK(panel["log_y"] == true);
  CHECK(panel["floor"].get<double>() == 1e-7);  // a power of ten at least half a decade under 1e-6
  CHECK(panel["series"][2]["values"][0].get<double>() == 0.0);  // the value stays the run's own
  INFO(f["notes"].dump());
  CHECK(f["notes"].dump().find("1 run at 0 or below drawn at 1e-07") != std::string::npos);
  // without the zero the axis needs no floor; a quantity without the span stays linear
  const auto g = finals_json(compute_tables(set, "primal_subopt", {}, absolute), {"passes"});
  CHECK(g["problems"][0]["panels"][0]["log_y"] == false);
  CHECK(g["problems"][0]["panels"][0]["floor"].is_null());
}

TEST_CASE("HTML report: self-contained file on uPlot, tables for every y") {
  TempDir tmp;
  make_results(tmp.path / "results");
  const fs::path html = tmp.path / "report.html";
  REQUIRE(run_command("compare", {(tmp.path / "results").string(), "--html", html.string(), "--x", "oracle_calls"}) == 0);
  const std::string page = read_file(html);
  CHECK(page.size() > 50000);
  CHECK(page.size() < 5'000'000);
  // self-contained: the plotting library is inlined, nothing is fetched at view time
  CHECK(page.find("uPlot") != std::string::npos);
  CHECK(page.find("src=\"http") == std::string::npos);
  CHECK(page.find("href=\"http") == std::string::npos);
  CHECK(page.find("<script src") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  for (const auto& s : kSolvers) CHECK(page.find("\"" + s + "\"") != std::string::npos);
  // tables follow the chosen y: one block per y, the default shown, the others hidden
  CHECK(page.find("data-problem=\"0\" data-y=\"primal_subopt\">") != std::string::npos);
  CHECK(page.find("data-problem=\"0\" data-y=\"gap\" style=\"display:none\">") != std::string::npos);
  CHECK(page.find("data-problem=\"0\" data-y=\"test_error\" style=\"display:none\">") != std::string::npos);

  // write_report: what the runner calls after `dualgap run`
  const fs::path report2 = tmp.path / "report2.html";
  CHECK(write_report({(tmp.path / "results" / "outputs").string()}, report2.string()) == report2.string());
  CHECK(fs::file_size(report2) > 50000);
  CHECK_THROWS(write_report({(tmp.path / "results" / "nothing-here").string()}, report2.string()));

  // uPlot missing: a clear error naming where it was looked for, not a broken page
  try {
    (void)load_uplot({(tmp.path / "no-uplot").string()});
    FAIL("load_uplot found uPlot in an empty directory");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("no-uplot") != std::string::npos);
    CHECK(std::string(e.what()).find("setup.sh") != std::string::npos);
  }
  // the installed copy (scripts/setup.sh) is found
  if (std::getenv("CI")) CHECK_NOTHROW(load_uplot(uplot_search_dirs()));
}

TEST_CASE("hostile names stay text: inline JSON without '<', '>', '&', U+2028; figures without mathtext") {
  TempDir tmp;
  const std::vector<std::string> names = {"<!--<script>", "</script><b>bold", "a&amp;b \u2028 c \u2029", "$\\foo$"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    SyntheticRun s;
    s.experiment = "<!--<script>exp";
    s.solver = names[i];
    s.run_id = "r" + std::to_string(i);
    s.seed = static_cast<int>(i);
    write_run(tmp.path / "results", dualgap::compare::testing::synthetic_run_json(s));
  }
  const std::string dir = (tmp.path / "results").string();
  const fs::path html = tmp.path / "report.html";
  REQUIRE(run_command("compare", {dir, "--html", html.string(), "--title", "<!--<script> & co"}) == 0);
  const std::string page = read_file(html);
  const std::string open = "<script type=\"application/json\" id=\"dualgap-data\">";
  const auto a = page.find(open);
  REQUIRE(a != std::string::npos);
  const auto b = page.find("</script>", a);
  REQUIRE(b != std::string::npos);
  const std::string payload = page.substr(a + open.size(), b - a - open.size());
  // nothing in the element the HTML parser could take for markup, and the JSON reads back whole
  CHECK(payload.find('<') == std::string::npos);
  CHECK(payload.find('>') == std::string::npos);
  CHECK(payload.find('&') == std::string::npos);
  CHECK(payload.find("\u2028") == std::string::npos);
  CHECK(payload.find("\u2029") == std::string::npos);
  const auto data = nlohmann::json::parse(payload);
  const std::string round = data.dump();
  for (const auto& n : names) CHECK(round.find(nlohmann::json(n).dump()) != std::string::npos);
  // the page's own scripts follow the data, and it ends
  CHECK(page.find("<script>", b) != std::string::npos);
  CHECK(page.find("</body></html>") != std::string::npos);
  // in the HTML around the scripts every name is escaped text
  const std::string html_part = page.substr(0, a);
  CHECK(html_part.find("<!--") == std::string::npos);
  CHECK(html_part.find("<b>bold") == std::string::npos);
  CHECK(html_part.find("&lt;!--&lt;script&gt;") != std::string::npos);
  CHECK(html_part.find("a&amp;amp;b") != std::string::npos);

  // a label with two '$' is drawn as written, not parsed as mathtext
  if (!require_tool(kPython, "matplotlib figures")) return;
  const fs::path png = tmp.path / "fig.png";
  CHECK(run_command("compare", {dir, "--figure", png.string(), "--title", "$\\bar{$ x"}) == 0);
  CHECK(fs::exists(png));
  const fs::path svg = tmp.path / "fig.svg";
  REQUIRE(run_command("compare", {dir, "--figure", svg.string()}) == 0);
  CHECK(read_file(svg).find("$\\foo$") != std::string::npos);  // SVG keeps text as text
}

TEST_CASE("HTML report in headless Chromium: drawn, decade labels, hover values, no network request") {
  if (!require_tool(kChromium, "the HTML report in a browser")) return;
  TempDir tmp;
  make_results(tmp.path / "results");
  const fs::path html = tmp.path / "report.html";
  REQUIRE(run_command("compare", {(tmp.path / "results").string(), "--html", html.string(), "--x", "oracle_calls"}) == 0);

  // drawn: a screenshot that is not blank
  TempDir profile;
  const fs::path shot = tmp.path / "shot.png";
  run_capture(std::string(kChromium) + " --headless --no-sandbox --disable-gpu --no-first-run "
              "--disable-background-networking --disable-component-update --disable-sync --window-size=1200,900 "
              "--user-data-dir=" + profile.path.string() + " --screenshot=" + shot.string() + " file://" +
              html.string() + " 2>/dev/null");
  REQUIRE(fs::exists(shot));
  auto [w, h] = png_size(shot);
  CHECK(w == 1200);
  CHECK(h == 900);
  if (fs::exists(kPython)) CHECK(png_pixel_spread(shot) > 0.02);

  const std::string dom = chromium_dom("file://" + html.string());
  REQUIRE(dom.find("</html>") != std::string::npos);
  CHECK(attribute(dom, "problem-0", "class") == "problem");
  CHECK(dom.find("data-ready-ms=") != std::string::npos);  // the script ran to its end
  CHECK(dom.find("data-resources=\"0\"") != std::string::npos);  // no request of any kind
  CHECK(dom.find("class=\"uplot") != std::string::npos);
  for (const auto& s : kSolvers) {
    CHECK(dom.find(">" + s + " (3 runs)<") != std::string::npos);  // a legend row per series
    CHECK(dom.find("type=\"checkbox\" data-solver=\"" + s + "\"") != std::string::npos);
  }
  // without the mouse over a chart, the legend shows no value
  CHECK(std::regex_search(dom, std::regex("<td class=\"u-value\">--</td>")));
  CHECK_FALSE(std::regex_search(dom, std::regex("<td class=\"u-value\">[0-9]")));
  // hover: the page's #hover hook moves the mouse to the middle of the first chart
  const std::string hovered = chromium_dom("file://" + html.string() + "#hover");
  CHECK(std::regex_search(hovered, std::regex("<td class=\"u-value\">[0-9][0-9.e+-]*</td>")));

  // the final values: every run a point of each strip plot, a bar per series
  for (int k = 0; k < 4; ++k) {
    CHECK(attribute(dom, "strip-0-" + std::to_string(k), "data-points") == "9");
    CHECK(attribute(dom, "strip-0-" + std::to_string(k), "data-medians") == "3");
  }
  // the profiles, on a report of two problems: a line per solver that solved one, tau labelled 2^k
  make_two_problems(tmp.path / "two");
  const fs::path two = tmp.path / "two.html";
  REQUIRE(run_command("compare", {(tmp.path / "two").string(), "--html", two.string(), "--x", "time"}) == 0);
  const auto two_data = report_data(read_file(two));
  const std::string tdom = chromium_dom("file://" + two.string());
  CHECK(attribute(tdom, "profile-0", "data-lines") == std::to_string(two_data["profile"]["panels"][0]["series"].size()));
  CHECK(attribute(tdom, "profile-1", "data-lines") == std::to_string(two_data["profile"]["panels"][1]["series"].size()));
  CHECK(attribute(tdom, "profile-0", "data-xticks").find("2\xe2\x81\xb0") != std::string::npos);  // 2^0
  CHECK(attribute(tdom, "strip-1-3", "data-points") == "9");

  // an axis from 1e-3 to 1e-1 carries at least two labelled decades
  make_decade_results(tmp.path / "decades");
  const fs::path dec = tmp.path / "decades.html";
  REQUIRE(run_command("compare", {(tmp.path / "decades").string(), "--html", dec.string()}) == 0);
  const std::string ddom = chromium_dom("file://" + dec.string());
  const auto ticks = words(attribute(ddom, "plot-0", "data-yticks"));
  INFO("y tick labels: " << attribute(ddom, "plot-0", "data-yticks"));
  int decades = 0;
  for (const auto& t : ticks)
    if (t.rfind("10", 0) == 0 && t.find("\xc3\x97") == std::string::npos) ++decades;  // 10^k, not m x 10^k
  CHECK(decades >= 2);
  for (const char* label : {"10\xe2\x81\xbb\xc2\xb3", "10\xe2\x81\xbb\xc2\xb9"})  // 10^-3 and 10^-1
    CHECK(std::find(ticks.begin(), ticks.end(), label) != ticks.end());
}

TEST_CASE("figures: {problem} in the --figure name writes one file per problem, each of its problem's runs only") {
  if (!require_tool(kPython, "matplotlib figures")) return;
  TempDir tmp;
  make_two_problems(tmp.path / "two");
  const std::string dir = (tmp.path / "two").string();
  const std::string pattern = (tmp.path / "fig-{problem}.png").string();
  REQUIRE(run_command("compare", {dir, "--figure", pattern, "--x", "time", "--size", "4,3", "--dpi", "50"}) == 0);
  for (const char* k : {"1", "2"}) {
    CAPTURE(k);
    const auto size = png_size(tmp.path / (std::string("fig-") + k + ".png"));
    CHECK(size.first == 200);
    CHECK(size.second == 150);
  }
  CHECK_FALSE(fs::exists(tmp.path / "fig-3.png"));
  CHECK_FALSE(fs::exists(tmp.path / "fig-{problem}.png"));
  // each file is its own problem's: selecting a problem by its key keeps that problem alone,
  // with all of its runs
  const RunSet set = load_runs({dir});
  REQUIRE(set.problems.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    RunSet one = set;
    Selection only;
    only.problems = {set.problems[k].key};
    select_runs(one, only);
    REQUIRE(one.problems.size() == 1);
    CHECK(one.problems[0].key == set.problems[k].key);
    CHECK(one.problems[0].runs.size() == set.problems[k].runs.size());
  }
  // the profiles and the final values compare problems in one figure
  CHECK(run_command("compare", {dir, "--figure", pattern, "--profile"}) == 2);
  CHECK(run_command("compare", {dir, "--figure", pattern, "--finals"}) == 2);
}

TEST_CASE("figures: style sizes, Type 42 fonts, one colour per solver across figures, footnote") {
  if (!require_tool(kPython, "matplotlib figures")) return;
  TempDir tmp;
  make_results(tmp.path / "results");
  const std::string dir = (tmp.path / "results").string();
  // --size x --dpi is the PNG size, whatever the grid
  const fs::path png = tmp.path / "fig.png";
  REQUIRE(run_command("compare", {dir, "--figure", png.string(), "--x", "oracle_calls", "--size", "4,3", "--dpi", "100"}) == 0);
  auto [w, h] = png_size(png);
  CHECK(w == 400);
  CHECK(h == 300);
  CHECK(png_pixel_spread(png) > 0.02);
  const fs::path png2 = tmp.path / "fig2.png";
  REQUIRE(run_command("compare", {dir, "--figure", png2.string(), "--x", "time", "--oracle-cost", "10", "--metrics",
                        "gap,working_set_size", "--style", "slides", "--size", "7.5,3.2", "--dpi", "120",
                        "--band", "iqr", "--columns", "2"}) == 0);
  auto [w2, h2] = png_size(png2);
  CHECK(w2 == 900);
  CHECK(h2 == 384);
  CHECK(run_command("compare", {dir, "--figure", png2.string(), "--band", "quartiles"}) == 2);
  CHECK(run_command("compare", {dir, "--figure", png2.string(), "--size", "4"}) == 2);
  CHECK(run_command("compare", {dir, "--figure", png2.string(), "--style", "poster"}) == 2);

  // the spec: replay note, panels, a series per solver
  RunSet set = load_runs({dir});
  Options opt;
  opt.oracle_cost = 10;
  FigureOptions fo;
  fo.x = "time";
  auto spec = figure_spec(set, fo, opt);
  CHECK(spec["notes"].dump().find("10x") != std::string::npos);
  CHECK(spec["panels"].size() == 3);
  CHECK(spec["panels"][0]["series"].size() == 3);
  CHECK(spec["panels"][0]["ylabel"].get<std::string>().find("primal suboptimality") != std::string::npos);

  // PDF: TrueType (Type 42) fonts only, never Type 3
  const fs::path pdf = tmp.path / "fig.pdf";
  REQUIRE(run_command("compare", {dir, "--figure", pdf.string()}) == 0);
  CHECK(read_file(pdf).rfind("%PDF", 0) == 0);
  if (require_tool("/usr/bin/pdffonts", "the fonts embedded in PDF figures")) {
    const std::string fonts = run_capture("/usr/bin/pdffonts " + pdf.string());
    INFO(fonts);
    CHECK(fonts.find("TrueType") != std::string::npos);
    CHECK(fonts.find("Type 3") == std::string::npos);
  }

  // colours: a solver keeps its colour in every figure of the experiment, also when others
  // are left out (--solver) or the series are reordered (--order)
  const fs::path svg_all = tmp.path / "all.svg", svg_some = tmp.path / "some.svg";
  REQUIRE(run_command("compare", {dir, "--figure", svg_all.string()}) == 0);
  REQUIRE(run_command("compare", {dir, "--figure", svg_some.string(), "--solver", "MP-*", "--order", "MP-BCFW-avg",
                        "--metrics", "gap"}) == 0);
  const std::string all = read_file(svg_all), some = read_file(svg_some);
  CHECK(all.find("<text") != std::string::npos);  // text stays text (svg.fonttype none)
  RunSet full = load_runs({dir});
  for (const auto& s : kSolvers) {
    const std::string colour = series_style(full, s).first;
    INFO(s << " " << colour);
    CHECK(all.find("stroke: " + colour) != std::string::npos);
    if (s == "BCFW") CHECK(some.find("stroke: " + colour) == std::string::npos);
    else CHECK(some.find("stroke: " + colour) != std::string::npos);
  }

  // a solver without the plotted quantity is named in a footnote, not dropped silently
  nlohmann::json boost = synthetic_run_json(SyntheticRun{});
  boost["run_id"] = "ada";
  boost["solver"] = "AdaBoost";
  boost["config"]["solver"]["name"] = "AdaBoost";
  boost["curve"].erase("primal");
  boost["curve"].erase("dual");
  boost["curve"].erase("gap");
  write_run(tmp.path / "results", boost);
  RunSet with_boost = load_runs({dir});
  FigureOptions f2;
  auto spec2 = figure_spec(with_boost, f2, Options{});
  CHECK(spec2["notes"].dump().find("AdaBoost") != std::string::npos);
  const fs::path png3 = tmp.path / "fig3.png";
  CHECK(run_command("compare", {dir, "--figure", png3.string(), "--style", "screen"}) == 0);
}
