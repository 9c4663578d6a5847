// Paper-style static figures: a JSON spec drawn by core/share/plot_figure.py (matplotlib).
//
// Layout follows the MP-BCFW paper's Figures 4/5: one row per problem, panels primal
// suboptimality, dual suboptimality and duality gap; without a certified dual, the relative
// objective and test error (Figures 2/3 of the sparse BCD paper).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "compare/model.hpp"

extern char** environ;

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

}  // namespace

json figure_spec(const RunSet& set, const FigureOptions& figure, const Options& options) {
  static const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  json spec;
  spec["title"] = figure.title;
  spec["xlabel"] = axis_label(figure.x, options.oracle_cost);
  spec["panel_width"] = 4.0;
  spec["panel_height"] = 3.2;
  spec["dpi"] = 100;
  std::vector<std::string> notes;
  if (options.oracle_cost != 1.0 && (figure.x == "time" || figure.x == "oracle_time"))
    notes.push_back(fmt::format("Assumption: each exact oracle call costs {:g}x its recorded time "
                                "(time replayed from the recorded oracle time).",
                                options.oracle_cost));
  json rows = json::array();
  for (const auto& p : set.problems) {
    std::vector<std::string> panels = figure.panels;
    if (panels.empty()) {
      if (p.has_dual) panels = {"primal_subopt", "dual_subopt", "gap"};
      else {
        panels = {"rel_objective"};
        if (has_column(set, p, "test_error")) panels.push_back("test_error");
      }
    }
    if (p.approximate) notes.push_back("Approximate primal/dual (" + p.label + "): bounds not certified.");
    json row = {{"title", p.label + (p.approximate ? "  [approximate]" : "")}, {"panels", json::array()}};
    for (const auto& y : panels) {
      Curves c = make_curves(set, p, figure.x, y, options);
      json panel = {{"y", c.y},
                    {"ylabel", c.y.empty() ? axis_label(y) + " (not available)" : axis_label(c.y, options.oracle_cost)},
                    {"log_x", c.log_x},
                    {"log_y", c.log_y},
                    {"series", json::array()}};
      for (const auto& b : c.bands) {
        auto idx = std::find(set.solvers.begin(), set.solvers.end(), b.solver) - set.solvers.begin();
        panel["series"].push_back({{"label", b.runs > 1 ? fmt::format("{} ({} runs)", b.solver, b.runs) : b.solver},
                                   {"color", kPalette[idx % 10]},
                                   {"x", numbers(c.grid)},
                                   {"median", numbers(b.median)},
                                   {"lo", numbers(b.lo)},
                                   {"hi", numbers(b.hi)}});
      }
      row["panels"].push_back(std::move(panel));
    }
    rows.push_back(std::move(row));
  }
  spec["rows"] = std::move(rows);
  std::string note;
  for (const auto& n : notes) note += (note.empty() ? "" : " ") + n;
  spec["note"] = note;
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

  std::string tmpl = (fs::temp_directory_path() / "dualgap-figure-XXXXXX.json").string();
  int fd = mkstemps(tmpl.data(), 5);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the figure spec");
  close(fd);
  struct Remove {
    std::string p;
    ~Remove() {
      std::error_code ec;
      fs::remove(p, ec);
    }
  } remove{tmpl};
  {
    std::ofstream f(tmpl);
    f << spec.dump();
    if (!f) throw std::runtime_error("cannot write " + tmpl);
  }
  std::vector<std::string> argv_s = {python, script, tmpl, out_path};
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot run " + python);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("waitpid failed");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(fmt::format("{} {} failed (exit status {})", python, script,
                                         WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  std::error_code ec;
  if (!fs::exists(out_path, ec) || fs::file_size(out_path, ec) == 0)
    throw std::runtime_error(out_path + ": the plotting script wrote nothing");
}

}  // namespace dualgap::compare
