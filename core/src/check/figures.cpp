// The figures a claims file declares (claims.hpp: FigureDecl), as specs of compare's
// paper-style renderer: the declaration chooses runs, panels, axes and scales; figure_spec draws.
#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/json_text.hpp"
#include "check/claims.hpp"
#include "compare/series.hpp"

using nlohmann::json;

namespace dualgap::check {

namespace {

// A section of the run's configuration as text ("" when absent): runs on the same data share
// their data and features sections.
std::string config_section(const compare::Run& r, const char* key) {
  return r.problem_config.contains(key) ? json_text(r.problem_config[key]) : "";
}

}  // namespace

compare::RunSet figure_runs(const compare::RunSet& set, const ClaimsFile& file, const FigureDecl& figure) {
  std::vector<std::string> experiments = figure.experiments;
  if (experiments.empty() && !file.experiment.empty()) experiments.push_back(file.experiment);
  // The figure's runs only are copied (a folder's results hold every experiment of it).
  compare::RunSet out;
  out.problems = set.problems;
  out.solvers = set.solvers;
  out.warnings = set.warnings;
  out.palette = set.palette;
  // A run is drawn when one of the declared series selects it (any of the figure's experiments
  // unless the entry names one), or when none is declared; it is drawn under the first selecting
  // entry's legend name.
  const auto legend_name = [&](const compare::Run& r) -> std::optional<std::string> {
    if (figure.solvers.empty()) return r.solver;
    for (std::size_t j = 0; j < figure.solvers.size(); ++j)
      if (side_matches(r, figure.solvers[j], ""))
        return j < figure.labels.size() && !figure.labels[j].empty() ? figure.labels[j] : r.solver;
    return std::nullopt;
  };
  for (const auto& r : set.runs)
    if (experiments.empty() || std::find(experiments.begin(), experiments.end(), r.experiment) != experiments.end())
      if (const auto name = legend_name(r)) {
        out.runs.push_back(r);
        out.runs.back().solver = *name;
      }
  // Panels follow the declared experiments' order (a problem is placed where its first run
  // is): the paper's column order of data sets, not the folder's file names.
  if (!figure.experiments.empty())
    std::stable_sort(out.runs.begin(), out.runs.end(), [&](const compare::Run& a, const compare::Run& b) {
      const auto rank = [&](const std::string& e) { return std::find(experiments.begin(), experiments.end(), e) - experiments.begin(); };
      return rank(a.experiment) < rank(b.experiment);
    });
  if (!experiments.empty() && out.runs.empty())
    throw std::runtime_error(fmt::format("{}: figure '{}': no run of the experiment(s) {}{}", figure.line, figure.file,
                                         fmt::join(experiments, ", "),
                                         figure.solvers.empty() ? "" : " that its solvers select"));
  // A raw column a declaration names must be a column of the runs: a typo is not drawn as an
  // empty panel.
  std::vector<std::pair<std::string, std::string>> names = {{figure.x, figure.line}};
  for (const auto& p : figure.panels) names.emplace_back(p.y, p.line);
  for (const auto& entry : names) {
    // Not a structured binding: clang 14 (the fuzz tree's compiler) cannot capture one in a lambda.
    const std::string& name = entry.first;
    const std::string& line = entry.second;
    if (compare::find_series(name)) continue;
    const bool found = std::any_of(out.runs.begin(), out.runs.end(), [&](const compare::Run& r) { return r.column(name) != nullptr; });
    if (!found)
      throw std::runtime_error(fmt::format("{}: figure '{}': '{}' is neither a series of compare nor a column of these runs",
                                           line, figure.file, name));
  }
  // A figure of task measures, counts and times only (test error, task loss, solver time: the
  // same quantity whatever objective a solver minimises) draws every run on the same data in one
  // panel, as the papers do (each boosting variant minimises its own loss, and compare keeps
  // objectives apart); a panel of an objective's value, or of a raw column, keeps them apart.
  const bool task_measures_only = std::all_of(figure.panels.begin(), figure.panels.end(), [](const FigurePanel& p) {
    const compare::SeriesDef* s = compare::find_series(p.y);
    return s && (s->task_measure || s->role == compare::SeriesDef::Role::x);
  });
  const bool trade_off = figure.kind == FigureDecl::Kind::trade_off;
  if (trade_off) {
    // A row per data set: a trade-off's series runs through the settings of a sweep (a point
    // per lambda), which are part of a run's problem; each series is one objective, named by
    // its entry, so nothing of different objectives is pooled under one name.
    for (auto& r : out.runs) {
      r.problem_key = config_section(r, "data") + "|" + config_section(r, "features");
    }
  } else if (task_measures_only) {
    // A row per data set: with series selected per setting, the settings of a sweep (part of a
    // run's problem) share the row of their data; without, each setting keeps its own row, since
    // a series is drawn by its label and would pool the settings.
    std::map<std::string, std::string> setting_of;  // data key + label -> the problem drawn
    for (auto& r : out.runs) {
      if (figure.solvers.empty()) {
        r.problem_key = r.data_key;
        continue;
      }
      r.problem_key = config_section(r, "data") + "|" + config_section(r, "features");
      const std::string problem = config_section(r, "problem");
      const auto [it, added] = setting_of.emplace(r.problem_key + "|" + r.solver, problem);
      if (!added && it->second != problem)
        throw std::runtime_error(fmt::format("{}: figure '{}': '{}' is selected at two settings on one data set ({} and {}); "
                                             "select one with `where`",
                                             figure.line, figure.file, r.solver, it->second, problem));
    }
  }
  compare::group_runs(out);
  if (!figure.solvers.empty()) {
    // The series in the declared order (a label selected at two settings is one series).
    std::vector<std::string> labels;
    for (std::size_t j = 0; j < figure.solvers.size(); ++j) {
      const std::string& name = j < figure.labels.size() && !figure.labels[j].empty() ? figure.labels[j] : figure.solvers[j].solver;
      if (std::find(labels.begin(), labels.end(), name) == labels.end()) labels.push_back(name);
    }
    compare::Selection sel;
    sel.solvers = labels;
    sel.order = fmt::format("{}", fmt::join(labels, ","));
    compare::select_runs(out, sel);
  }
  return out;
}

json declared_figure_spec(const compare::RunSet& runs, const FigureDecl& figure, const compare::Options& options) {
  compare::FigureOptions fo;
  fo.x = figure.x;
  fo.title = figure.title;
  fo.style = "paper";
  // Committed beside a README (at most 300 KB a folder): a PNG at a screen's resolution, not
  // the paper style's print 300 dpi.
  fo.dpi = 110;
  fo.columns = figure.columns;
  for (const auto& p : figure.panels) fo.metrics.push_back(p.y);
  if (figure.kind == FigureDecl::Kind::trade_off) {
    json spec = compare::trade_off_figure_spec(runs, fo, options);
    for (std::size_t i = 0; i < spec["panels"].size(); ++i) {
      spec["panels"][i]["log_x"] = figure.log_x;
      spec["panels"][i]["log_y"] = figure.panels[i % figure.panels.size()].log_y;
    }
    return spec;
  }
  // The claims beside the figure read each series as recorded (evaluate.cpp: P - D_best, not
  // divided by |D_best|), as the papers' figures draw them: the figure is drawn at those levels,
  // so a claim's "to primal suboptimality 1e-2" is a level of the panel it names.
  compare::Options levels = options;
  levels.levels = compare::Options::Levels::absolute;
  json spec = compare::figure_spec(runs, fo, levels);
  // The declared scales replace the renderer's choice (a decade rule): the paper's axes are the
  // reference, and a panel drawn on another scale would not be the paper's figure (values <= 0
  // are left out of a log axis by matplotlib).
  const std::size_t per_row = figure.panels.size();
  for (std::size_t i = 0; i < spec["panels"].size(); ++i) {
    json& panel = spec["panels"][i];
    panel["log_x"] = figure.log_x;
    panel["log_y"] = figure.panels[i % per_row].log_y;
  }
  return spec;
}

}  // namespace dualgap::check
