// `compare --csv FILE`: every curve in long ("tidy") format, one row per run x checkpoint, so
// that pandas, R or a spreadsheet can re-plot anything (docs/compare.md has the pandas loader).
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "base/files.hpp"
#include "compare/model.hpp"

namespace dualgap::compare {

namespace {

std::string field(const std::string& s) { return csv_field(s); }

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.17g}", v) : std::string(); }

std::string scalar(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return json_text(v);
}

// Recorded columns first in the order of the registry, then any other column by name.
std::vector<std::string> curve_columns(const RunSet& set) {
  std::set<std::string> present;
  for (const Run& r : set.runs)
    for (const auto& [name, v] : r.curve) present.insert(name);
  std::vector<std::string> out;
  for (const auto& d : series_registry())
    if (present.erase(d.name)) out.push_back(d.name);
  out.insert(out.end(), present.begin(), present.end());
  return out;
}

}  // namespace

std::size_t write_csv(const RunSet& set, const std::string& path, const Options& options) {
  const std::vector<std::string> columns = curve_columns(set);
  // Derived convergence measures against the best bounds, so that nobody recomputes them.
  std::vector<std::string> derived;
  for (const auto& d : series_registry())
    if (d.convergence && !std::count(columns.begin(), columns.end(), d.name)) derived.push_back(d.name);
  std::vector<std::string> seed_keys;
  for (const Run& r : set.runs)
    if (r.seeds.is_object())
      for (auto& [k, v] : r.seeds.items())
        if (std::find(seed_keys.begin(), seed_keys.end(), k) == seed_keys.end()) seed_keys.push_back(k);

  AtomicFile out(path);  // streamed: a large CSV is never one string; the old file stays on failure
  std::ostream& f = out.stream();
  f << "experiment,problem_key,objective_key,problem,solver,solver_name,run_id,repeat";
  for (const auto& k : seed_keys) f << ",seed_" << k;
  f << ",status,checkpoint";
  for (const auto& c : columns) f << "," << field(c);
  for (const auto& c : derived) f << "," << field(c);
  f << "\n";
  std::size_t rows = 0;
  for (const Run& r : set.runs) {
    const std::size_t n = r.checkpoints();
    std::string head = field(r.experiment) + "," + field(r.problem_key) + "," + field(r.objective_key) + "," +
                       field(set.problems[r.problem].label) + "," + field(r.solver) + "," + field(r.solver_name) +
                       "," + field(r.run_id) + "," + (r.repeat >= 0 ? std::to_string(r.repeat) : std::string());
    for (const auto& k : seed_keys)
      head += "," + field(r.seeds.is_object() && r.seeds.contains(k) ? scalar(r.seeds[k]) : std::string());
    head += "," + field(r.status);
    std::vector<std::vector<double>> values;
    for (const auto& c : derived) values.push_back(series(set, r, c, options.oracle_cost));
    for (std::size_t k = 0; k < n; ++k) {
      f << head << "," << k;
      for (const auto& c : columns) {
        const auto* v = r.column(c);
        f << "," << (v && k < v->size() ? number((*v)[k]) : std::string());
      }
      for (const auto& v : values) f << "," << (k < v.size() ? number(v[k]) : std::string());
      f << "\n";
      ++rows;
    }
  }
  out.commit();
  return rows;
}

}  // namespace dualgap::compare
