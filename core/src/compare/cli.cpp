// `dualgap compare` command line and the report the runner writes after `dualgap run`.
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "compare/compare.hpp"
#include "compare/model.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace dualgap::compare {

namespace {

const std::vector<std::string> kDerived = {"primal_subopt", "dual_subopt", "rel_objective", "time_recorded"};

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    std::size_t used = 0;
    double v = std::stod(item, &used);
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

std::set<std::string> available_columns(const RunSet& set) {
  std::set<std::string> names(kDerived.begin(), kDerived.end());
  for (const auto& r : set.runs)
    for (const auto& [name, v] : r.curve) names.insert(name);
  return names;
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary);
  f << content;
  f.close();
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int compare_main(const std::vector<std::string>& args) {
  std::vector<std::string> inputs;
  std::string x, y, html, figure, json_out, eps_s, panels_s, title;
  double oracle_cost = 1.0;
  int grid_points = 120;
  po::options_description visible(
      "usage: dualgap compare RESULTS... [options]\n"
      "  RESULTS: run.json files or directories (searched recursively)\n\noptions");
  visible.add_options()
      ("help,h", "this help")
      ("x", po::value(&x)->default_value("passes"),
       "x axis: passes, oracle_calls, approx_oracle_calls, time, oracle_time, time_recorded, or any curve column")
      ("y", po::value(&y)->default_value("primal_subopt"),
       "y measured in tables and drawn first in the HTML: primal_subopt, dual_subopt, gap, rel_objective, "
       "test_error, train_error, or any curve column (primal_subopt falls back to rel_objective without a "
       "certified dual)")
      ("table", "print the text tables (default when no other output is asked for)")
      ("json", po::value(&json_out)->implicit_value("-"), "write the computed tables as JSON (--json=FILE, or stdout)")
      ("html", po::value(&html), "write a self-contained interactive HTML report")
      ("figure", po::value(&figure), "write a paper-style figure (.png, .pdf or .svg) with matplotlib")
      ("panels", po::value(&panels_s), "figure panels, comma-separated y names (default: primal_subopt,dual_subopt,gap;"
                                       " rel_objective,test_error without a certified dual)")
      ("eps", po::value(&eps_s)->default_value("1e-1,1e-2,1e-3,1e-4"), "epsilons of the time-to-reach tables")
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
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << visible << "\nSee docs/compare.md.\n";
      return 0;
    }
    eps = parse_list(eps_s);
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
  } catch (const std::invalid_argument&) {
    std::cerr << "dualgap compare: --eps must be a comma-separated list of numbers\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "dualgap compare: " << e.what() << "\n(dualgap compare --help for usage)\n";
    return 2;
  }

  Options options;
  options.oracle_cost = oracle_cost;
  options.grid_points = grid_points;
  try {
    RunSet set = load_runs(inputs);
    for (const auto& w : set.warnings) std::cerr << "warning: " << w << "\n";
    if (set.runs.empty()) {
      std::cerr << "dualgap compare: no readable run.json found\n";
      return 1;
    }
    const auto cols = available_columns(set);
    auto check = [&](const std::string& what, const std::string& name) {
      if (cols.count(name)) return true;
      std::string list;
      for (const auto& c : cols) list += " " + c;
      std::cerr << fmt::format("dualgap compare: unknown {} '{}'; available:{}\n", what, name, list);
      return false;
    };
    std::vector<std::string> panels = split(panels_s);
    if (!check("--x", x) || !check("--y", y)) return 2;
    for (const auto& p : panels)
      if (!check("panel", p)) return 2;

    json tables = compute_tables(set, y, eps, options);
    const bool any_output = !html.empty() || !figure.empty() || !json_out.empty();
    if (vm.count("table") || !any_output) std::cout << format_text(tables);
    if (!json_out.empty()) {
      if (json_out == "-") std::cout << tables.dump(1) << "\n";
      else write_file(json_out, tables.dump(1));
    }
    if (!html.empty()) {
      HtmlOptions h;
      h.title = title.empty() ? "dualgap compare" : title;
      h.x = x;
      h.y = y;
      h.eps = eps;
      write_file(html, render_html(set, tables, h, options));
      std::cerr << "wrote " << html << "\n";
    }
    if (!figure.empty()) {
      FigureOptions f;
      f.x = x;
      f.panels = panels;
      f.title = title;
      write_figure(figure_spec(set, f, options), figure);
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
  json tables = compute_tables(set, h.y, h.eps, options);
  write_file(html_path, render_html(set, tables, h, options));
  return html_path;
}

}  // namespace dualgap::compare
