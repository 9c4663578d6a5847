// `dualgap compare` command line and the report the runner writes after `dualgap run`.
#include <cmath>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "base/files.hpp"
#include "base/output_option.hpp"
#include "check/claims.hpp"
#include "compare/compare.hpp"
#include "compare/model.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace dualgap::compare {

namespace {

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::out_of_range&) {  // 1e400: not a number a double holds
      throw std::invalid_argument(item);
    }
    if (used != item.size()) throw std::invalid_argument(item);
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

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

int compare_main(const std::vector<std::string>& args) {
  std::vector<std::string> inputs;
  std::string x, y, html, figure, json_out, eps_s, metrics_s, title, csv, format_s, levels_s, size_s, claims_scale;
  std::vector<std::string> claims_paths;
  FigureOptions fig;
  Selection selection;
  ProfileOptions profile;
  double oracle_cost = 1.0;
  int grid_points = 120;
  po::options_description visible(
      "usage: dualgap compare RESULTS... [options]\n"
      "  RESULTS: run.json files or directories (searched recursively)\n\noptions");
  visible.add_options()
      ("help,h", "this help")
      ("x", po::value(&x)->default_value("passes"),
       ("x axis (and the cost measure of --profile): " + series_names(SeriesDef::Role::x) + ", or any curve column")
           .c_str())
      ("y", po::value(&y)->default_value("primal_subopt"),
       ("y measured in tables and profiles and drawn first in the HTML: " + series_names(SeriesDef::Role::y) +
        ", or any curve column (primal_subopt falls back to rel_objective without a certified dual)")
           .c_str())
      ("table", "print the tables (default when no other output is asked for)")
      ("format", po::value(&format_s)->default_value("text"), "tables as text, markdown, latex or csv")
      ("levels", po::value(&levels_s)->default_value("relative"),
       "eps levels: relative ((P - D_best)/|D_best|, where a certified bound exists) or absolute")
      ("eps", po::value(&eps_s)->default_value("1e-1,1e-2,1e-3,1e-4"), "epsilons of the time-to-reach tables")
      ("json", output_path(&json_out, "--json")->implicit_value("-"), "write the computed tables as JSON (--json=FILE, or stdout)")
      ("csv", output_path(&csv, "--csv"), "write every curve in long format (one row per run x checkpoint) to FILE")
      ("html", output_path(&html, "--html"), "write a self-contained interactive HTML report")
      ("claims", po::value(&claims_paths)->composing(),
       "claims file whose verdicts head the HTML report (repeatable; default: every experiments/*/claims.yaml "
       "that names an experiment of the runs, as dualgap check)")
      ("claims-scale", po::value(&claims_scale)->default_value("full"),
       "full, or ci: claims marked 'scale: full' are shown as such and not evaluated (as dualgap check --scale)")
      ("no-claims", "no claims section in the HTML report")
      ("figure", output_path(&figure, "--figure"), "write a figure (.png, .pdf or .svg) with matplotlib (the profiles with --profile)")
      ("metrics", po::value(&metrics_s), "figure metrics, comma-separated y names (default: primal_subopt,dual_subopt,gap;"
                                         " rel_objective,test_error without a certified dual)")
      ("panels", po::value(&fig.panels)->default_value("metric"),
       "metric: a row per problem, a panel per metric; problem: a panel per problem (and metric) in a grid")
      ("style", po::value(&fig.style)->default_value("paper"), "figure style: paper, slides or screen")
      ("size", po::value(&size_s), "figure size W,H in inches (default: the style's panel size x the grid)")
      ("dpi", po::value(&fig.dpi)->default_value(0), "figure resolution (default: the style's: 300, 150, 100)")
      ("font-size", po::value(&fig.font_size)->default_value(0), "font size in points (default: the style's)")
      ("columns", po::value(&fig.columns)->default_value(0), "panels per row of the figure")
      ("band", po::value(&fig.band)->default_value("minmax"), "band around the median: minmax, iqr or none")
      ("profile", "performance and data profiles over all problems: summary table (and --figure draws them)")
      ("profile-tol", po::value(&profile.tol)->default_value(1e-3),
       "a problem is solved when the measured y (at --levels) reaches this")
      ("solver", po::value(&selection.solvers), "keep series whose label or solver name matches GLOB (repeatable)")
      ("problem", po::value(&selection.problems), "keep problems whose label or key matches GLOB (repeatable)")
      ("order", po::value(&selection.order)->default_value("config"),
       "series order: config (the experiment's solvers list), name, or LABEL1,LABEL2,...")
      ("oracle-cost", po::value(&oracle_cost)->default_value(1.0),
       "replay time axes as if each exact oracle call cost K times its recorded time")
      ("grid-points", po::value(&grid_points)->default_value(120), "points of the common resampling grid")
      ("title", po::value(&title), "title of the report and figure");
  po::options_description hidden;
  hidden.add_options()("inputs", po::value(&inputs));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  std::vector<double> eps;
  TableFormat format = TableFormat::text;
  Options options;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << visible << "\nSee docs/compare.md.\n";
      return 0;
    }
    try {
      eps = parse_list(eps_s);
    } catch (const std::invalid_argument&) {
      throw po::error("--eps must be a comma-separated list of numbers, not '" + eps_s + "'");
    }
    // An epsilon is a level of suboptimality: a NaN or a level <= 0 is reached by no run (or,
    // for NaN, compares false everywhere), which would read as every solver failing.
    if (eps.empty()) throw po::error("--eps '" + eps_s + "': give at least one epsilon > 0");
    for (double e : eps)
      if (!std::isfinite(e) || !(e > 0))
        throw po::error(fmt::format("--eps '{}': every epsilon must be a finite number > 0, not {}", eps_s, e));
    if (inputs.empty()) throw po::error("no results given (run.json files or directories)");
    if (!(oracle_cost > 0) || !std::isfinite(oracle_cost)) throw po::error("--oracle-cost must be > 0");
    if (grid_points < 2 || grid_points > 100000) throw po::error("--grid-points must be in 2..100000");
    if (!figure.empty()) {
      auto ext = std::filesystem::path(figure).extension().string();
      if (ext != ".png" && ext != ".pdf" && ext != ".svg")
        throw po::error("--figure must end in .png, .pdf or .svg");
      // A folder on the way that is a file would surface as a Python traceback from the plotter.
      for (auto dir = std::filesystem::path(figure).parent_path(); !dir.empty(); dir = dir.parent_path()) {
        std::error_code ec;
        if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
          throw po::error("--figure " + figure + ": " + dir.string() + " is a file, not a folder");
        if (dir == dir.parent_path()) break;
      }
    }
    try {
      format = parse_table_format(format_s);
    } catch (const std::invalid_argument& e) {
      throw po::error(e.what());
    }
    if (levels_s != "relative" && levels_s != "absolute") throw po::error("--levels must be relative or absolute");
    if (claims_scale != "full" && claims_scale != "ci") throw po::error("--claims-scale must be full or ci");
    if (fig.style != "paper" && fig.style != "slides" && fig.style != "screen")
      throw po::error("--style must be paper, slides or screen");
    if (fig.band != "minmax" && fig.band != "iqr" && fig.band != "none")
      throw po::error("--band must be minmax, iqr or none");
    if (fig.panels != "metric" && fig.panels != "problem")
      throw po::error("--panels must be metric or problem (the metrics themselves: --metrics Y1,Y2)");
    if (!size_s.empty()) {
      std::vector<double> wh;
      try {
        wh = parse_list(size_s);
      } catch (const std::invalid_argument&) {
      }
      if (wh.size() != 2 || !(wh[0] > 0) || !(wh[1] > 0) || wh[0] > 100 || wh[1] > 100)
        throw po::error("--size must be W,H in inches (two positive numbers up to 100), not '" + size_s + "'");
      fig.width = wh[0];
      fig.height = wh[1];
    }
    if (fig.dpi < 0 || fig.dpi > 2400) throw po::error("--dpi must be in 1..2400");
    if (fig.font_size < 0 || fig.font_size > 72) throw po::error("--font-size must be in 1..72");
    if (fig.columns < 0 || fig.columns > 50) throw po::error("--columns must be in 1..50");
    if (!(profile.tol > 0)) throw po::error("--profile-tol must be > 0");
  } catch (const po::error& e) {
    std::cerr << "dualgap compare: " << e.what() << "\n(dualgap compare --help for usage)\n";
    return 2;
  }

  options.oracle_cost = oracle_cost;
  options.grid_points = grid_points;
  options.levels = levels_s == "absolute" ? Options::Levels::absolute : Options::Levels::relative;
  try {
    RunSet set = load_runs(inputs);
    for (const auto& w : set.warnings) std::cerr << "warning: " << w << "\n";
    if (set.runs.empty()) {
      std::cerr << "dualgap compare: no readable run.json found\n";
      return 1;
    }
    select_runs(set, selection);
    const auto cols = available_columns(set);
    auto check = [&](const std::string& what, const std::string& name) {
      if (cols.count(name)) return true;
      std::string list;
      for (const auto& c : cols) list += " " + c;
      std::cerr << fmt::format("dualgap compare: no {} '{}' in these runs; available:{}\n", what, name, list);
      return false;
    };
    fig.metrics = split(metrics_s);
    if (!check("--x", x) || !check("--y", y)) return 2;
    for (const auto& p : fig.metrics)
      if (!check("metric", p)) return 2;

    json tables = compute_tables(set, y, eps, options);
    const bool want_profile = vm.count("profile") > 0;
    std::optional<Profile> prof;
    if (want_profile) {
      profile.measure = x;
      profile.y = y;
      prof = compute_profile(set, profile, options);
      tables["profile"] = profile_json(*prof);
    }
    const bool any_output = !html.empty() || !figure.empty() || !json_out.empty() || !csv.empty() || want_profile;
    if (vm.count("table") || !any_output) std::cout << format_tables(tables, format);
    if (want_profile) std::cout << format_profile(*prof, format);
    if (!json_out.empty()) {
      if (json_out == "-") std::cout << tables.dump(1) << "\n";
      else write_file_atomic(json_out, tables.dump(1));
    }
    if (!csv.empty()) {
      const std::size_t rows = write_csv(set, csv, options);
      std::cerr << "wrote " << csv << " (" << rows << " rows)\n";
    }
    if (!html.empty()) {
      HtmlOptions h;
      h.title = title.empty() ? "dualgap compare" : title;
      h.x = x;
      h.y = y;
      h.eps = eps;
      if (!vm.count("no-claims")) {
        h.verdicts = report_verdicts(set, claims_paths, claims_scale == "ci");
        h.verdicts_scale = claims_scale;
      }
      write_file_atomic(html, render_html(set, h, options));
      std::cerr << "wrote " << html << "\n";
    }
    if (!figure.empty()) {
      fig.x = x;
      fig.title = title;
      write_figure(want_profile ? profile_figure_spec(set, *prof, fig) : figure_spec(set, fig, options), figure);
      std::cerr << "wrote " << figure << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "dualgap compare: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

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
