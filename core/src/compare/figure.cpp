// Paper-style static figures: a JSON spec drawn by core/share/plot_figure.py (matplotlib).
//
// Default layout follows the MP-BCFW paper's Figures 4/5: one row per problem, panels primal
// suboptimality, dual suboptimality and duality gap; without a certified dual, the relative
// objective and test error (Figures 2/3 of the sparse BCD paper). The spec carries data and
// choices (style, size, band); plot_figure.py carries the look of each style.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/json_text.hpp"
#include "base/files.hpp"
#include "base/process.hpp"
#include "compare/model.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dualgap::compare {

namespace {

json numbers(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(std::isfinite(x) ? json(x) : json(nullptr));
  return a;
}

bool has_column(const RunSet& set, const Problem& p, const std::string& name) {
  for (std::size_t r : p.runs)
    if (set.runs[r].column(name)) return true;
  return false;
}

// Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), then tab10.
const char* kPalette[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
                          "#000000", "#f0e442", "#8c564b", "#7f7f7f", "#bcbd22", "#17becf"};
const char* kMarkers[] = {"o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"};

std::vector<std::string> default_metrics(const RunSet& set, const Problem& p) {
  if (p.has_dual) return {"primal_subopt", "dual_subopt", "gap"};
  std::vector<std::string> m = {"rel_objective"};
  if (has_column(set, p, "test_error")) m.push_back("test_error");
  return m;
}

json base_spec(const RunSet& set, const FigureOptions& figure) {
  json spec = {{"title", figure.title},    {"style", figure.style},       {"width", figure.width},
               {"height", figure.height},  {"dpi", figure.dpi},           {"font_size", figure.font_size},
               {"columns", figure.columns}, {"band", figure.band},        {"series", json::array()}};
  for (const auto& label : set.solvers) {
    auto [color, marker] = series_style(set, label);
    spec["series"].push_back({{"label", label}, {"color", color}, {"marker", marker}});
  }
  return spec;
}

}  // namespace

std::pair<std::string, std::string> series_style(const RunSet& set, const std::string& label) {
  const auto& order = set.palette.empty() ? set.solvers : set.palette;
  auto it = std::find(order.begin(), order.end(), label);
  const std::size_t i = it == order.end() ? order.size() : static_cast<std::size_t>(it - order.begin());
  return {kPalette[i % std::size(kPalette)], kMarkers[i % std::size(kMarkers)]};
}

json figure_spec(const RunSet& set, const FigureOptions& figure, const Options& options) {
  json spec = base_spec(set, figure);
  std::vector<std::string> notes;
  if (options.oracle_cost != 1.0 && (figure.x == "time" || figure.x == "oracle_time"))
    notes.push_back(fmt::format("Assumption: each exact oracle call costs {:g}x its recorded time "
                                "(time replayed from the recorded oracle time).",
                                options.oracle_cost));
  struct Cell {
    std::size_t problem;
    std::string y;
  };
  std::vector<Cell> cells;
  std::size_t widest = 1;
  for (std::size_t pi = 0; pi < set.problems.size(); ++pi) {
    const Problem& p = set.problems[pi];
    const auto metrics = figure.metrics.empty() ? default_metrics(set, p) : figure.metrics;
    widest = std::max(widest, metrics.size());
    if (p.approximate) notes.push_back("Approximate primal/dual (" + p.label + "): bounds not certified.");
    if (!p.note.empty()) notes.push_back(p.note);
    for (const auto& y : metrics) cells.push_back({pi, y});
  }
  if (figure.panels == "problem") {
    // metric-major: all problems of the first metric, then the next metric
    std::stable_sort(cells.begin(), cells.end(), [&](const Cell& a, const Cell& b) {
      auto rank = [&](const std::string& y) {
        const auto m = figure.metrics.empty() ? default_metrics(set, set.problems[0]) : figure.metrics;
        return std::find(m.begin(), m.end(), y) - m.begin();
      };
      return rank(a.y) < rank(b.y);
    });
    spec["columns"] = figure.columns > 0 ? figure.columns : static_cast<int>(std::min<std::size_t>(3, set.problems.size()));
  } else {
    spec["columns"] = figure.columns > 0 ? figure.columns : static_cast<int>(widest);
  }
  std::map<std::string, std::vector<std::string>> missing;  // y label -> solvers without it
  json panels = json::array();
  const bool several = set.problems.size() > 1;
  std::vector<Curves> curves;
  for (const auto& cell : cells) curves.push_back(make_curves(set, set.problems[cell.problem], figure.x, cell.y, options));
  // The convergence panels of a problem (primal and dual suboptimality, gap) share the log scale
  // once one of them needs it, as in the papers: a dual suboptimality that spans less than a
  // decade is not drawn linear between two log panels.
  std::vector<bool> log_problem(set.problems.size(), false);
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (is_convergence(curves[i].y) && curves[i].log_y) log_problem[cells[i].problem] = true;
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (is_convergence(curves[i].y) && log_problem[cells[i].problem]) curves[i].log_y = true;
  for (std::size_t ci = 0; ci < cells.size(); ++ci) {
    const auto& cell = cells[ci];
    const Problem& p = set.problems[cell.problem];
    Curves& c = curves[ci];
    const std::string ylabel = c.y.empty() ? axis_label(cell.y) + " (not available)" : c.label;
    json panel = {{"title", several ? p.title + (p.approximate ? "  [approximate]" : "") : std::string()},
                  {"y", cell.y},
                  {"xlabel", axis_label(figure.x, options.oracle_cost)},
                  {"ylabel", ylabel},
                  {"log_x", c.log_x},
                  {"log_y", c.log_y},
                  {"steps", true},
                  {"series", json::array()}};
    for (const auto& b : c.bands) {
      const bool iqr = figure.band == "iqr";
      panel["series"].push_back({{"label", b.solver},
                                 {"runs", b.runs},
                                 {"x", numbers(c.grid)},
                                 {"median", numbers(b.median)},
                                 {"lo", figure.band == "none" ? json(nullptr) : numbers(iqr ? b.q1 : b.lo)},
                                 {"hi", figure.band == "none" ? json(nullptr) : numbers(iqr ? b.q3 : b.hi)}});
    }
    for (const auto& m : c.missing) {
      auto& list = missing[c.y.empty() ? axis_label(cell.y) : c.label];
      if (std::find(list.begin(), list.end(), m) == list.end()) list.push_back(m);
    }
    panels.push_back(std::move(panel));
  }
  for (const auto& [y, solvers] : missing) {
    std::string list;
    for (const auto& s : solvers) list += (list.empty() ? "" : ", ") + s;
    notes.push_back(fmt::format("Not shown for lack of {}: {}.", y, list));
  }
  if (figure.band != "none")
    notes.push_back(figure.band == "iqr" ? "Lines: median over repeats; bands: interquartile range."
                                         : "Lines: median over repeats; bands: min-max.");
  spec["panels"] = std::move(panels);
  spec["notes"] = notes;
  return spec;
}

namespace {

// The last finite value of a run's series; NaN when it has none.
double last_value(const RunSet& set, const Run& run, const std::string& name, double oracle_cost) {
  const std::vector<double> v = series(set, run, name, oracle_cost);
  for (auto it = v.rbegin(); it != v.rend(); ++it)
    if (std::isfinite(*it)) return *it;
  return kNaN;
}

}  // namespace

json trade_off_figure_spec(const RunSet& set, const FigureOptions& figure, const Options& options) {
  json spec = base_spec(set, figure);
  const std::size_t per_row = std::max<std::size_t>(1, figure.metrics.size());
  spec["columns"] = figure.columns > 0 ? figure.columns : static_cast<int>(per_row);
  std::vector<std::string> notes;
  const bool several = set.problems.size() > 1;
  json panels = json::array();
  for (const Problem& p : set.problems) {
    if (p.approximate) notes.push_back("Approximate primal/dual (" + p.label + "): bounds not certified.");
    for (const auto& y : figure.metrics) {
      // The row's runs share their data, not their objective: its title names what they share.
      json panel = {{"title", several ? p.title : std::string()},
                    {"y", y},
                    {"xlabel", axis_label(figure.x, options.oracle_cost) + " at the end of a run"},
                    {"ylabel", axis_label(y, options.oracle_cost)},
                    {"log_x", false},
                    {"log_y", false},
                    {"steps", false},
                    {"series", json::array()}};
      for (const auto& label : p.solvers) {
        // A point per objective (a setting of the sweep), over the series' repeats of it.
        struct Values {
          std::vector<double> x, y;
        };
        std::map<std::string, Values> by_objective;
        std::size_t runs = 0;
        for (std::size_t r : p.runs) {
          const Run& run = set.runs[r];
          if (run.solver != label) continue;
          const double xv = last_value(set, run, figure.x, options.oracle_cost);
          const double yv = last_value(set, run, y, options.oracle_cost);
          if (!std::isfinite(xv) || !std::isfinite(yv)) continue;
          Values& v = by_objective[run.objective_key.empty() ? run.run_id : run.objective_key];
          v.x.push_back(xv);
          v.y.push_back(yv);
          ++runs;
        }
        struct Point {
          double x, median, lo, hi;
        };
        std::vector<Point> points;
        for (const auto& [objective, v] : by_objective) {
          const auto [lo, hi] = std::minmax_element(v.y.begin(), v.y.end());
          points.push_back({median_of(v.x), median_of(v.y), *lo, *hi});
        }
        if (points.empty()) continue;
        std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
        json s = {{"label", label}, {"runs", runs}, {"x", json::array()}, {"median", json::array()},
                  {"lo", json::array()}, {"hi", json::array()}};
        for (const Point& pt : points) {
          s["x"].push_back(pt.x);
          s["median"].push_back(pt.median);
          s["lo"].push_back(pt.lo);
          s["hi"].push_back(pt.hi);
        }
        panel["series"].push_back(std::move(s));
      }
      panels.push_back(std::move(panel));
    }
  }
  notes.push_back("Each point: one setting of the sweep, its values at the end of the run (median over repeats; "
                  "bands: min-max).");
  spec["panels"] = std::move(panels);
  spec["notes"] = notes;
  return spec;
}

json finals_figure_spec(const RunSet& set, const json& finals, const FigureOptions& figure) {
  json spec = base_spec(set, figure);
  spec["legend"] = false;  // each strip is named on its x axis
  std::vector<std::string> notes;
  for (const Problem& p : set.problems) {
    if (p.approximate) notes.push_back("Approximate primal/dual (" + p.label + "): bounds not certified.");
    if (!p.note.empty()) notes.push_back(p.note);
  }
  for (const auto& n : finals["notes"]) notes.push_back(n.get<std::string>());
  const json& problems = finals["problems"];
  std::vector<std::pair<std::size_t, std::size_t>> cells;  // (problem, panel)
  for (std::size_t pi = 0; pi < problems.size(); ++pi)
    for (std::size_t k = 0; k < problems[pi]["panels"].size(); ++k) cells.emplace_back(pi, k);
  if (figure.panels == "problem") {
    // quantity-major: all problems of the first quantity, then the next
    std::stable_sort(cells.begin(), cells.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    spec["columns"] = figure.columns > 0 ? figure.columns : static_cast<int>(std::min<std::size_t>(3, problems.size()));
  } else {
    spec["columns"] = figure.columns > 0 ? figure.columns : static_cast<int>(std::max<std::size_t>(1, finals["quantities"].size()));
  }
  const bool several = problems.size() > 1;
  json panels = json::array();
  for (const auto& [pi, k] : cells) {
    const json& fp = problems[pi]["panels"][k];
    json series = json::array();
    for (const auto& s : fp["series"]) {
      json x = json::array();
      for (const auto& o : s["offsets"]) x.push_back(s["position"].get<double>() + o.get<double>());
      series.push_back({{"label", s["label"]}, {"position", s["position"]}, {"x", x}, {"values", s["values"]},
                        {"median", s["median"]}});
    }
    // The finals' problems are the set's, in its order.
    const Problem* problem = pi < set.problems.size() ? &set.problems[pi] : nullptr;
    panels.push_back({{"kind", "strip"},
                      {"title", several && problem ? problem->title + (problem->approximate ? "  [approximate]" : "")
                                                   : std::string()},
                      {"xlabel", ""},
                      {"ylabel", fp["label"]},
                      {"log_x", false},
                      {"log_y", fp["log_y"]},
                      {"floor", fp["floor"]},
                      {"categories", problems[pi]["categories"]},
                      {"median_half_width", finals["median_half_width"]},
                      {"series", std::move(series)}});
  }
  spec["panels"] = std::move(panels);
  spec["notes"] = notes;
  return spec;
}

json profile_figure_spec(const RunSet& set, const Profile& pr, const FigureOptions& figure) {
  json spec = base_spec(set, figure);
  spec["columns"] = figure.columns > 0 ? figure.columns : 2;
  spec["panels"] = profile_panels(pr);
  spec["notes"] = pr.notes();
  return spec;
}

std::string find_plot_script() {
  if (const char* env = std::getenv("DUALGAP_PLOT_SCRIPT"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path() / ".." / "share" / "dualgap" / "plot_figure.py";
    if (fs::exists(installed, ec)) return installed.lexically_normal().string();
  }
#ifdef DUALGAP_SOURCE_DIR
  fs::path source = fs::path(DUALGAP_SOURCE_DIR) / "core" / "share" / "plot_figure.py";
  if (fs::exists(source, ec)) return source.string();
#endif
  throw std::runtime_error("plot_figure.py not found (looked next to the executable in ../share/dualgap/ and in "
                           "the source tree; set DUALGAP_PLOT_SCRIPT)");
}

void write_figure(const json& spec, const std::string& out_path) {
  const std::string script = find_plot_script();
  const char* py_env = std::getenv("DUALGAP_PYTHON");
  // Debian's python3-matplotlib lives with the system interpreter, not a pyenv/venv one.
  const std::string python = py_env && *py_env ? py_env : "/usr/bin/python3";

  // The plotter gets two open descriptors and no path: the spec in an anonymous memory file (no
  // temporary on disk), the figure's AtomicFile in the figure's folder. The figure takes its
  // name only after the plotter succeeded, so a failed plot (a full disk, a traceback) leaves
  // the old figure as it was and no partial file.
  json with_format = spec;
  std::string ext = fs::path(out_path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  with_format["format"] = ext;
  const std::string text = json_text(with_format);
  Fd spec_fd(memfd_create("dualgap-figure-spec", MFD_CLOEXEC));
  if (!spec_fd) throw FileError(out_path, "cannot create the figure's spec", errno);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(spec_fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw FileError(out_path, "cannot write the figure's spec", n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  if (::lseek(spec_fd.get(), 0, SEEK_SET) != 0) throw FileError(out_path, "cannot rewind the figure's spec", errno);
  AtomicFile out(out_path);
  // The child gets them as descriptors 3 and 4; its messages (a matplotlib error) go to our
  // stderr as they come.
  ProcessOptions po;
  po.out = ProcessOptions::Stream::inherit;
  po.err = ProcessOptions::Stream::inherit;
  po.pass_fds = {spec_fd.get(), out.fd()};
  const ProcessResult r = run_process({python, script, "fd:3", "fd:4"}, po);
  if (!r.ok())
    throw std::runtime_error(fmt::format("{} {} failed ({}); {} was not written", python, script, r.how_ended(), out_path));
  struct stat st {};
  if (::fstat(out.fd(), &st) != 0 || st.st_size == 0)
    throw std::runtime_error(out_path + ": the plotting script wrote nothing");
  out.commit();
}

}  // namespace dualgap::compare
