// `dualgap compare` command line, and the report `dualgap run` writes (write_report).
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "base/files.hpp"
#include "check/claims.hpp"
#include "cli/entries.hpp"
#include "compare/compare.hpp"
#include "compare/model.hpp"
#include "compare/table_format.hpp"

using nlohmann::json;

namespace dualgap::compare {

namespace {

// Raw curve columns, and the registered series some run can compute (derived ones included).
std::set<std::string> available_columns(const RunSet& set) {
  std::set<std::string> names;
  for (const auto& r : set.runs)
    for (const auto& [name, v] : r.curve) names.insert(name);
  for (const auto& d : series_registry())
    for (const auto& r : set.runs)
      if (!series(set, r, d.name).empty()) {
        names.insert(d.name);
        break;
      }
  names.insert("primal_subopt");  // falls back to rel_objective without a certified dual
  return names;
}

/// The claims of `claims_paths` (none given: every experiments/*/claims.yaml naming an experiment of
/// the runs) evaluated on the runs, for the report's verdicts. A claims file that cannot be read
/// is a warning here (the report is still written); `dualgap check` reports it as an error.
json report_verdicts(const RunSet& set, const std::vector<std::string>& claims_paths, bool ci_scale) {
  try {
    std::vector<check::ClaimsFile> files;
    for (const auto& p : claims_paths) files.push_back(check::read_claims(p));
    if (claims_paths.empty()) files = check::claims_for_runs(set);
    return check::verdicts_json(set, files, ci_scale);
  } catch (const std::exception& e) {
    std::cerr << "warning: the report shows no claims: " << e.what() << "\n";
    return json::array();
  }
}

}  // namespace

std::string write_report(const std::vector<std::string>& result_dirs, const std::string& html_path) {
  RunSet set = load_runs(result_dirs);
  if (set.runs.empty()) throw std::runtime_error("no readable run.json under the result directories");
  Options options;
  HtmlOptions h;
  if (!set.runs.front().experiment.empty()) h.title = set.runs.front().experiment + " - dualgap report";
  h.eps = {1e-1, 1e-2, 1e-3, 1e-4};
  bool has_oracle_calls = false;
  for (const auto& r : set.runs) has_oracle_calls = has_oracle_calls || r.column("oracle_calls");
  h.x = has_oracle_calls ? "oracle_calls" : "passes";
  h.verdicts = report_verdicts(set, {}, false);
  write_file_atomic(html_path, render_html(set, h, options));
  return html_path;
}

}  // namespace dualgap::compare

namespace dualgap::cli {

namespace {

using namespace compare;

/// "1e-2,1e-3": each a finite number > 0 (an epsilon no run reaches, or NaN, which compares false
/// everywhere, would read as every solver failing); empty items are skipped.
std::optional<std::vector<double>> positive_numbers(const std::string& s) {
  std::vector<double> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {  // not a number, or 1e400: not one a double holds
      return std::nullopt;
    }
    if (used != item.size() || !std::isfinite(v) || !(v > 0)) return std::nullopt;
    out.push_back(v);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::vector<std::string> comma_names(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

bool figure_name(const std::string& f) {
  const auto ext = std::filesystem::path(f).extension().string();
  return ext == ".png" || ext == ".pdf" || ext == ".svg";
}

/// A folder on the way that is a file would surface as a Python traceback from the plotter.
void check_figure_folder(const std::string& figure) {
  for (auto dir = std::filesystem::path(figure).parent_path(); !dir.empty(); dir = dir.parent_path()) {
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
      throw bad_value("--figure", figure, "a file in a folder, but " + dir.string() + " is a file, not a folder");
    if (dir == dir.parent_path()) break;
  }
}

/// --x, --y and --metrics name a column some run has: else exit 2, listing the columns.
void check_columns(const RunSet& set, const std::string& x, const std::string& y, const std::vector<std::string>& metrics) {
  const auto cols = available_columns(set);
  std::string list;
  for (const auto& c : cols) list += (list.empty() ? "" : ", ") + c;
  auto check = [&](const std::string& option, const std::string& name) {
    if (!cols.count(name)) throw bad_value(option, name, "a column of these runs: " + list);
  };
  check("--x", x);
  check("--y", y);
  for (const auto& m : metrics) check("--metrics", m);
}

FigureOptions figure_options(const Args& a) {
  FigureOptions fig;
  fig.metrics = comma_names(a.text("metrics"));
  fig.panels = a.text("panels");
  fig.style = a.text("style");
  fig.band = a.text("band");
  fig.dpi = a.maybe<int>("dpi").value_or(0);
  fig.font_size = a.maybe<int>("font-size").value_or(0);
  fig.columns = a.maybe<int>("columns").value_or(0);
  if (auto wh = a.maybe<std::vector<double>>("size")) {
    fig.width = (*wh)[0];
    fig.height = (*wh)[1];
  }
  fig.x = a.text("x");
  fig.title = a.text("title");
  return fig;
}

/// In a --figure name, the place of the problem's number (1, 2, ...): one file per problem.
const std::string kProblemField = "{problem}";

/// The outputs asked for, from the runs and the tables computed on them.
void write_outputs(const Args& a, const RunSet& set, json& tables, const Options& options) {
  const std::string x = a.text("x"), y = a.text("y"), html = a.text("html"), figure = a.text("figure"),
                    json_out = a.text("json"), csv = a.text("csv");
  const TableFormat format = a.get<TableFormat>("format");
  const bool want_profile = a.has("profile");
  std::optional<Profile> prof;
  if (want_profile) {
    ProfileOptions profile;
    profile.tol = a.get<double>("profile-tol");
    profile.measure = x;
    profile.y = y;
    prof = compute_profile(set, profile, options);
    tables["profile"] = profile_json(*prof);
  }
  std::optional<json> finals;
  if (a.has("finals")) {
    finals = finals_json(tables, comma_names(a.text("metrics")));
    tables["finals"] = *finals;
  }
  const bool any_output = !html.empty() || !figure.empty() || !json_out.empty() || !csv.empty() || want_profile;
  if (a.has("table") || !any_output) std::cout << format_tables(tables, format);
  if (want_profile) std::cout << format_profile(*prof, format);
  if (!json_out.empty()) {
    if (json_out == "-") std::cout << json_text(tables, 1) << "\n";
    else write_file_atomic(json_out, json_text(tables, 1));
  }
  if (!csv.empty()) {
    const std::size_t rows = write_csv(set, csv, options);
    std::cerr << "wrote " << csv << " (" << rows << " rows)\n";
  }
  if (!html.empty()) {
    HtmlOptions h;
    h.title = a.text("title").empty() ? "dualgap compare" : a.text("title");
    h.x = x;
    h.y = y;
    h.eps = a.get<std::vector<double>>("eps");
    h.profile = prof;  // the numbers --profile printed, when asked for
    h.profile_tol = a.get<double>("profile-tol");
    if (!a.has("no-claims")) {
      h.verdicts = report_verdicts(set, a.list("claims"), a.text("claims-scale") == "ci");
      h.verdicts_scale = a.text("claims-scale");
    }
    write_file_atomic(html, render_html(set, h, options));
    std::cerr << "wrote " << html << "\n";
  }
  if (!figure.empty()) {
    const FigureOptions fig = figure_options(a);
    const std::size_t at = figure.find(kProblemField);
    if (at == std::string::npos) {
      write_figure(want_profile ? profile_figure_spec(set, *prof, fig)
                   : finals     ? finals_figure_spec(set, *finals, fig)
                                : figure_spec(set, fig, options),
                   figure);
      std::cerr << "wrote " << figure << "\n";
    } else {
      // One file per problem: the runs of problem k alone, drawn as the whole figure would draw
      // them (the palette is kept, so a solver has its colour in every file).
      for (std::size_t k = 0; k < set.problems.size(); ++k) {
        RunSet one = set;
        Selection only;
        only.problems = {set.problems[k].key};
        select_runs(one, only);
        std::string file = figure;
        file.replace(at, kProblemField.size(), std::to_string(k + 1));
        write_figure(figure_spec(one, fig, options), file);
        std::cerr << "wrote " << file << " (problem " << k + 1 << ": " << set.problems[k].label << ")\n";
      }
    }
  }
}

}  // namespace

void compare_options(po::options_description& d) {
  auto* eps = new Checked<std::vector<double>>("a comma-separated list of finite numbers greater than 0",
                                               positive_numbers);
  eps->default_value({1e-1, 1e-2, 1e-3, 1e-4}, "1e-1,1e-2,1e-3,1e-4");
  auto* size = new Checked<std::vector<double>>(
      "W,H in inches (two positive numbers up to 100)", [](const std::string& s) {
        auto wh = positive_numbers(s);
        return wh && wh->size() == 2 && (*wh)[0] <= 100 && (*wh)[1] <= 100 ? wh : std::nullopt;
      });
  d.add_options()
      ("x", po::value<std::string>()->default_value("passes"),
       ("x axis (and the cost measure of --profile): " + series_names(SeriesDef::Role::x) + ", or any curve column")
           .c_str())
      ("y", po::value<std::string>()->default_value("primal_subopt"),
       ("y measured in tables and profiles and drawn first in the HTML: " + series_names(SeriesDef::Role::y) +
        ", or any curve column (primal_subopt falls back to rel_objective without a certified dual)")
           .c_str())
      ("table", "print the tables (default when no other output is asked for)")
      ("format", choice<TableFormat>({{"text", TableFormat::text}, {"markdown", TableFormat::markdown},
                                      {"latex", TableFormat::latex}, {"csv", TableFormat::csv}}),
       "tables as text, markdown, latex or csv")
      ("levels", choice<Options::Levels>({{"relative", Options::Levels::relative}, {"absolute", Options::Levels::absolute}}),
       "what the figures, final values, eps tables and profiles measure: relative ((P - D_best) / |D_best|, where a "
       "certified bound exists) or absolute (P - D_best)")
      ("eps", eps, "epsilons of the time-to-reach tables")
      ("json", output_path()->implicit_value("-", "-"), "write the computed tables as JSON (--json=FILE, or stdout)")
      ("csv", output_path(), "write every curve in long format (one row per run x checkpoint) to FILE")
      ("html", output_path(), "write a self-contained interactive HTML report")
      ("claims", po::value<std::vector<std::string>>()->composing(),
       "claims file whose verdicts head the HTML report (repeatable; default: every experiments/*/claims.yaml "
       "that names an experiment of the runs, as dualgap check)")
      ("claims-scale", choice({"full", "ci"}),
       "full, or ci: claims marked 'scale: full' are shown as such and not evaluated (as dualgap check --scale)")
      ("no-claims", "no claims section in the HTML report")
      ("figure", text_if(figure_name, "a file name ending in .png, .pdf or .svg"),
       "write a figure (.png, .pdf or .svg) with matplotlib (the profiles with --profile, the final values with --finals); "
       "{problem} in the name writes one file per problem, numbered as in the tables (fig-{problem}.png)")
      ("metrics", po::value<std::string>(), "figure metrics, comma-separated y names (default: primal_subopt,dual_subopt,gap;"
                                            " rel_objective,test_error without a certified dual; with --finals: the "
                                            "measured y, gap, test_error, time)")
      ("panels", choice({"metric", "problem"}),
       "metric: a row per problem, a panel per metric; problem: a panel per problem (and metric) in a grid")
      ("style", choice({"paper", "slides", "screen"}), "figure style: paper, slides or screen")
      ("size", size, "figure size W,H in inches (default: the style's panel size x the grid)")
      ("dpi", whole(1, 2400), "figure resolution (default: the style's: 300, 150, 100)")
      ("font-size", whole(1, 72), "font size in points (default: the style's)")
      ("columns", whole(1, 50), "panels per row of the figure")
      ("band", choice({"minmax", "iqr", "none"}), "band around the median: minmax, iqr or none")
      ("profile", "performance and data profiles over all problems: summary table (and --figure draws them)")
      ("profile-tol", positive()->default_value(1e-3),
       "a problem is solved when the measured y (at --levels) reaches this (--profile and the HTML report's profiles)")
      ("finals", "final values over repeats: --figure draws them as strip plots (a point per run, a bar at the "
                 "median; per problem the measured y, gap, test error and time, or --metrics), --json adds them")
      ("solver", po::value<std::vector<std::string>>()->composing(),
       "keep series whose label or solver name matches GLOB (repeatable)")
      ("problem", po::value<std::vector<std::string>>()->composing(),
       "keep problems whose label or key matches GLOB (repeatable)")
      ("order", po::value<std::string>()->default_value("config"),
       "series order: config (the experiment's solvers list), name, or LABEL1,LABEL2,...")
      ("oracle-cost", positive()->default_value(1.0),
       "replay time axes as if each exact oracle call cost K times its recorded time")
      ("grid-points", whole(2, 100000)->default_value(120), "points of the common resampling grid")
      ("title", po::value<std::string>(), "title of the report and figure");
}

int compare_main(const Args& a) {
  if (a.has("figure")) check_figure_folder(a.text("figure"));
  if (a.has("figure") && a.text("figure").find(kProblemField) != std::string::npos && (a.has("profile") || a.has("finals")))
    throw UsageError("--figure with {problem} draws one file per problem: the curves only, not the profiles "
                     "(--profile) or the final values (--finals), which compare problems in one figure");
  // --profile and --finals each choose what the one --figure draws
  if (a.has("finals") && a.has("profile") && a.has("figure"))
    throw UsageError("--figure draws either the profiles (--profile) or the final values (--finals), not both: "
                     "give one of them, or run compare twice");
  if (a.has("finals") && !a.has("figure") && !a.has("json"))
    throw UsageError("--finals draws the final values with --figure FILE or writes them with --json: give one of them");
  Options options;
  options.oracle_cost = a.get<double>("oracle-cost");
  options.grid_points = a.get<int>("grid-points");
  options.levels = a.get<Options::Levels>("levels");
  const auto inputs = a.list("results");
  RunSet set = load_runs(inputs);
  for (const auto& w : set.warnings) std::cerr << "warning: " << w << "\n";
  if (set.runs.empty()) throw std::runtime_error(fmt::format("no readable run.json under {}", fmt::join(inputs, ", ")));
  Selection selection;
  selection.solvers = a.list("solver");
  selection.problems = a.list("problem");
  selection.order = a.text("order");
  select_runs(set, selection);
  check_columns(set, a.text("x"), a.text("y"), comma_names(a.text("metrics")));
  json tables = compute_tables(set, a.text("y"), a.get<std::vector<double>>("eps"), options);
  write_outputs(a, set, tables, options);
  return 0;
}

}  // namespace dualgap::cli
