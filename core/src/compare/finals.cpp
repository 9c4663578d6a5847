// The final-values view: where each solver ends, run by run. Benchmark reports show the spread of
// the final primal, gap, error and time over repeats as strip plots; the median and range of the
// final-values table are summaries of exactly these points.
//
// Built from compute_tables' JSON alone (its runs' "final" entries and its per-solver medians),
// so the figure, the HTML report and --json cannot disagree about a run's final value.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compare/model.hpp"

using nlohmann::json;

namespace dualgap::compare {

namespace {

// Half the width of a series' strip on the x axis (one unit per series), and of its median bar
// (a little wider, so that it shows past the points).
constexpr double kStripHalfWidth = 0.25;
constexpr double kMedianHalfWidth = 0.32;

// The i-th of n sideways offsets: the golden-ratio sequence, a spread without clumps that is the
// same on every machine and in every output.
double strip_offset(std::size_t i, std::size_t n) {
  if (n <= 1) return 0;
  const double golden = 0.6180339887498949;
  const double u = std::fmod(static_cast<double>(i) * golden, 1.0);
  return (2 * u - 1) * kStripHalfWidth;
}

}  // namespace

json finals_json(const json& tables, const std::vector<std::string>& quantities) {
  const std::string y = tables.value("y", std::string());
  const double oracle_cost = tables.value("oracle_cost", 1.0);
  // Slot 0 of the default is the measured y, which each problem resolves on its own
  // (primal_subopt becomes rel_objective without a certified dual).
  const bool by_default = quantities.empty();
  std::vector<std::string> slots = by_default ? std::vector<std::string>{y, "gap", "test_error", "time"} : quantities;
  std::vector<std::string> unique;
  for (const auto& q : slots)
    if (std::find(unique.begin(), unique.end(), q) == unique.end()) unique.push_back(q);
  slots = std::move(unique);
  auto name_in = [&](const json& p, const std::string& slot) {
    return slot == y && !p["y"].get<std::string>().empty() ? p["y"].get<std::string>() : slot;
  };
  // A default quantity no run of any shown problem has is left out; one that some run has is
  // shown for every problem.
  std::vector<std::string> kept;
  for (const auto& slot : slots) {
    bool any = !by_default || slot == y;
    for (const auto& r : tables["runs"]) {
      if (any) break;
      const json& p = tables["problems"][r["problem"].get<std::size_t>()];
      const json& f = r["final"];
      const std::string name = name_in(p, slot);
      any = f.contains(name) && f[name].is_number();
    }
    if (any) kept.push_back(slot);
  }
  json out = {{"y", y}, {"quantities", kept}, {"median_half_width", kMedianHalfWidth}, {"problems", json::array()}};
  json notes = json::array({"Points: each run's final value, spread sideways within its series (the spread "
                            "carries no value); bars: the median over repeats (as the final-values table)."});
  const bool several = tables["problems"].size() > 1;
  for (std::size_t pi = 0; pi < tables["problems"].size(); ++pi) {
    const json& p = tables["problems"][pi];
    std::map<std::string, std::vector<std::string>> missing;  // quantity label -> series without it
    std::map<std::string, std::vector<std::string>> partial;  // quantity label -> "series (k of n runs)"
    json problem_notes = json::array();
    const json& relative = p["final_relative"];
    json categories = json::array();
    for (const auto& js : p["solvers"]) categories.push_back(js["solver"]);
    json panels = json::array();
    for (std::size_t k = 0; k < kept.size(); ++k) {
      const std::string name = name_in(p, kept[k]);
      const bool rel = std::find(relative.begin(), relative.end(), name) != relative.end();
      std::string label = measured_label(name, rel, oracle_cost);
      json series = json::array();
      double lo = kNaN, hi = kNaN;  // over the positive values
      std::size_t not_positive = 0;
      for (std::size_t c = 0; c < p["solvers"].size(); ++c) {
        const json& js = p["solvers"][c];
        const std::string solver = js["solver"].get<std::string>();
        json runs = json::array(), values = json::array(), offsets = json::array();
        std::size_t without = 0;
        std::vector<double> vs;
        for (const auto& r : tables["runs"]) {
          if (r["problem"].get<std::size_t>() != pi || r["solver"] != solver) continue;
          const json& f = r["final"];
          if (!f.contains(name) || !f[name].is_number()) {
            ++without;
            continue;
          }
          runs.push_back(r["run_id"]);
          vs.push_back(f[name].get<double>());
        }
        if (vs.empty()) {
          auto& list = missing[label];
          if (std::find(list.begin(), list.end(), solver) == list.end()) list.push_back(solver);
          continue;
        }
        if (without > 0) partial[label].push_back(fmt::format("{} ({} of {} runs)", solver, without, without + vs.size()));
        for (std::size_t i = 0; i < vs.size(); ++i) {
          values.push_back(vs[i]);
          offsets.push_back(strip_offset(i, vs.size()));
          if (!(vs[i] > 0)) {
            ++not_positive;
            continue;
          }
          lo = std::isfinite(lo) ? std::min(lo, vs[i]) : vs[i];
          hi = std::isfinite(hi) ? std::max(hi, vs[i]) : vs[i];
        }
        const json& cell = js["final"].contains(name) ? js["final"][name] : json();
        series.push_back({{"label", solver},
                          {"position", c},
                          {"runs", runs},
                          {"values", values},
                          {"offsets", offsets},
                          {"median", cell.is_object() ? cell["median"] : json(nullptr)},
                          {"without", without}});
      }
      if (series.empty()) label += " (not available)";
      // Log when the positive values span two decades and every value can be drawn on it; for a
      // convergence measure also when some are 0 or below (the run that defines the best bound
      // ends at 0): those are drawn on a floor, the power of ten at least half a decade under the
      // smallest positive value, and the notes say how many. A linear axis would flatten every
      // converged solver onto 0.
      const bool spans = std::isfinite(lo) && spans_decades(lo, hi);
      const bool log = spans && (not_positive == 0 || is_convergence(name));
      const double floor_at = log && not_positive > 0 ? std::pow(10.0, std::floor(std::log10(lo) - 0.5)) : kNaN;
      if (std::isfinite(floor_at))
        problem_notes.push_back(fmt::format("{}: {} run{} at 0 or below drawn at {:g} (the log axis' floor).", label,
                                            not_positive, not_positive == 1 ? "" : "s", floor_at));
      panels.push_back({{"quantity", name},
                        {"slot", k},
                        {"label", label},
                        {"log_y", log},
                        {"floor", json_number(floor_at)},
                        {"series", std::move(series)}});
    }
    // what this problem's panels lack; the figure's footnote names the problem when there are several
    for (const auto& [label, solvers] : missing)
      problem_notes.push_back(fmt::format("No final {}: {}.", label, fmt::join(solvers, ", ")));
    for (const auto& [label, solvers] : partial)
      problem_notes.push_back(fmt::format("Runs without a final {}: {}.", label, fmt::join(solvers, ", ")));
    for (const auto& n : problem_notes)
      notes.push_back(several ? p["label"].get<std::string>() + ": " + n.get<std::string>() : n.get<std::string>());
    out["problems"].push_back({{"label", p["label"]},
                               {"categories", categories},
                               {"panels", std::move(panels)},
                               {"notes", std::move(problem_notes)}});
  }
  out["notes"] = std::move(notes);
  return out;
}

}  // namespace dualgap::compare
