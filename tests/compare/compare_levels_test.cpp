// The plots, the final values and the time-to-eps tables of one set of runs measure the same
// quantity at the same levels (relative or absolute), and each states which.
#include <doctest/doctest.h>

#include <cmath>

#include "compare/model.hpp"
#include "synthetic.hpp"

using namespace dualgap::compare;
using dualgap::compare::testing::SyntheticRun;
using dualgap::compare::testing::synthetic_run_json;
using dualgap::compare::testing::TempDir;
using dualgap::compare::testing::write_run;
using nlohmann::json;

namespace {

double smallest_drawn(const json& median) {
  double m = INFINITY;
  for (const auto& v : median)
    if (v.is_number()) m = std::min(m, v.get<double>());
  return m;
}

double last_drawn(const json& median) {
  double last = NAN;
  for (const auto& v : median)
    if (v.is_number()) last = v.get<double>();
  return last;
}

}  // namespace

TEST_CASE("a table and a figure of the same runs agree on whether each level was reached, at either levels") {
  TempDir tmp;
  // An objective near 100: (P - D_best) / |D_best| is 100 times smaller than P - D_best, so a
  // figure of one and a table of the other disagree at eps = 1e-3.
  for (auto [solver, rate] : {std::pair{"BCFW", 0.1}, std::pair{"MP", 0.2}}) {
    SyntheticRun s;
    s.solver = solver;
    s.run_id = solver;
    s.rate = rate;
    s.optimum = 100.0;
    write_run(tmp.path, synthetic_run_json(s));
  }
  const RunSet set = load_runs({tmp.path.string()});
  const std::vector<double> eps = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5};
  for (auto levels : {Options::Levels::relative, Options::Levels::absolute}) {
    const bool relative = levels == Options::Levels::relative;
    CAPTURE(relative);
    Options o;
    o.levels = levels;
    for (const std::string y : {"primal_subopt", "dual_subopt", "gap"}) {
      CAPTURE(y);
      const json t = compute_tables(set, y, eps, o);
      FigureOptions f;
      f.x = "passes";
      f.metrics = {y};
      const json spec = figure_spec(set, f, o);
      REQUIRE(spec["panels"].size() == 1);
      const json& panel = spec["panels"][0];
      const json& p = t["problems"][0];
      CHECK(p["levels"] == (relative ? "relative" : "absolute"));
      int compared = 0;
      for (const auto& drawn : panel["series"]) {
        for (const auto& js : p["solvers"]) {
          if (js["solver"] != drawn["label"]) continue;
          const double low = smallest_drawn(drawn["median"]);
          for (std::size_t i = 0; i < eps.size(); ++i) {
            CAPTURE(eps[i]);
            const bool table_reached = js["reach"][i]["passes"]["reached"].get<int>() > 0;
            CHECK(table_reached == (low <= eps[i]));
            ++compared;
          }
          // the final value the table shows is the drawn line's end
          REQUIRE(js["final"].contains(y));
          CHECK(js["final"][y]["median"].get<double>() == doctest::Approx(last_drawn(drawn["median"])));
        }
      }
      CHECK(compared == 2 * static_cast<int>(eps.size()));
      // Both state the measured quantity, the formula in parentheses when it is divided.
      const std::string ylabel = panel["ylabel"].get<std::string>();
      const std::string heading = format_text(t);
      const std::string formula = y == "primal_subopt" ? "P - D_best" : y == "dual_subopt" ? "P_best - D" : "P - D";
      if (relative) {
        CHECK(ylabel.find("(" + formula + ") / |D_best|") != std::string::npos);
        CHECK(p["y_label"].get<std::string>().find("(" + formula + ") / |D_best|") != std::string::npos);
        CHECK(heading.find("(" + formula + ") / |D_best| <= eps (relative levels)") != std::string::npos);
        CHECK(heading.find("Final values (relative levels") != std::string::npos);
      } else {
        CHECK(ylabel.find(formula) != std::string::npos);
        CHECK(ylabel.find("|D_best|") == std::string::npos);
        CHECK(heading.find(formula + " <= eps (absolute levels)") != std::string::npos);
      }
      CHECK(heading.find("P - D_best / |D_best|") == std::string::npos);  // never without parentheses
    }
  }
}
