// Reading claims.yaml: every key is checked, and a mistake names the file, the line and what
// was expected (a claim that silently reads nothing would "hold" vacuously).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "base/util.hpp"
#include "check/claims.hpp"
#include "compare/series.hpp"
#include "base/yaml.hpp"

using nlohmann::json;

namespace dualgap::check {

namespace {

// What a number of a claim may be: every number is finite (a NaN bound would make every
// comparison false, an infinite one every comparison true), some also have a sign.
enum class Range { any, non_negative, positive };

// The typed-field reader: every field of a claims file is read through one of these, and a
// mismatch names the file, the line and what was expected.
struct ClaimsReader {
  std::string path;

  std::string where(const YAML::Node& node) const {
    const int line = node.IsDefined() ? node.Mark().line : -1;
    return line >= 0 ? fmt::format("{}:{}", path, line + 1) : path;
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    throw std::runtime_error(fmt::format("{}: {}", where(node), what));
  }
  /// The scalar text of a value, for messages.
  static std::string shown(const YAML::Node& node) {
    if (node.IsScalar()) return "'" + printable(node.Scalar()) + "'";
    if (node.IsNull()) return "nothing";
    return node.IsSequence() ? "a list" : "a mapping";
  }

  std::string key(const YAML::Node& k, const std::string& what) const {
    if (!k.IsScalar()) fail(k, what + ": expected a key name, found " + shown(k));
    return k.Scalar();
  }

  void only_keys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& what) const {
    if (!map.IsMap()) fail(map, what + ": expected a mapping, found " + shown(map));
    for (const auto& kv : map) {
      const std::string k = key(kv.first, what);
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, fmt::format("{}: unknown key '{}' (valid keys: {})", what, k, list));
      }
    }
  }

  std::string str(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what + ": expected a string, found " + shown(node));
    return node.Scalar();
  }

  /// A plain file name beside claims.yaml ending in one of `endings`: letters, digits, '.', '_',
  /// '-', not starting with '.'. Nothing a claims file names is a path elsewhere (a figure written,
  /// an experiment file run).
  std::string file_name(const YAML::Node& node, const std::string& what, const std::vector<std::string>& endings) const {
    const std::string name = str(node, what);
    const bool plain = !name.empty() && name.front() != '.' &&
                       name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
                           std::string::npos;
    const bool ends = std::any_of(endings.begin(), endings.end(), [&](const std::string& e) {
      return name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
    });
    if (!plain || !ends)
      fail(node, fmt::format("{}: expected a file name of letters, digits, '.', '_', '-' ending in {}, found '{}'", what,
                             fmt::join(endings, " or "), printable(name)));
    return name;
  }

  /// An experiment file of the folder: a plain *.yaml name other than claims.yaml.
  std::string experiment_file(const YAML::Node& node, const std::string& what) const {
    const std::string name = file_name(node, what, {".yaml"});
    if (name == "claims.yaml") fail(node, what + ": expected an experiment file, found the claims file itself");
    return name;
  }

  double number(const YAML::Node& node, const std::string& what, Range range = Range::any) const {
    const char* expected = range == Range::positive       ? "a finite number > 0"
                           : range == Range::non_negative ? "a finite number >= 0"
                                                          : "a finite number";
    if (!node.IsScalar()) fail(node, fmt::format("{}: expected {}, found {}", what, expected, shown(node)));
    double v = 0;
    try {
      v = node.as<double>();
    } catch (const YAML::Exception&) {
      fail(node, fmt::format("{}: expected {}, found {}", what, expected, shown(node)));
    }
    if (!std::isfinite(v) || (range == Range::positive && !(v > 0)) || (range == Range::non_negative && !(v >= 0)))
      fail(node, fmt::format("{}: expected {}, found {}", what, expected, shown(node)));
    return v;
  }

  bool flag(const YAML::Node& node, const std::string& what) const {
    bool v = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v))
      fail(node, what + ": expected true or false, found " + shown(node));
    return v;
  }

  json scalar_json(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what + ": expected a scalar value, found " + shown(node));
    const std::string s = node.Scalar();
    try {
      std::size_t used = 0;
      double v = std::stod(s, &used);
      if (used == s.size() && std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
    return s;
  }

  // `label`: where not null, the entry may also name its series in a figure's legend.
  // `extra`: one more key the entry may hold, read by the caller (a table cell's `stat`).
  Side side(const YAML::Node& node, const std::string& what, std::string* label = nullptr, const char* extra = nullptr) const {
    Side s;
    if (node.IsScalar()) {
      s.solver = node.Scalar();
      return s;
    }
    if (!node.IsMap())
      fail(node, fmt::format("{}: expected a series label or {{solver, experiment, where{}}}, found {}", what,
                             label ? ", label" : "", shown(node)));
    if (label) {
      only_keys(node, {"solver", "experiment", "where", "label"}, what);
      if (node["label"]) *label = str(node["label"], what + ".label");
    } else if (extra) {
      only_keys(node, {"solver", "experiment", "where", extra}, what);
    } else {
      only_keys(node, {"solver", "experiment", "where"}, what);
    }
    if (!node["solver"]) fail(node, what + ": 'solver' is required");
    s.solver = str(node["solver"], what + ".solver");
    if (node["experiment"]) s.experiment = str(node["experiment"], what + ".experiment");
    if (const YAML::Node w = node["where"]) {
      if (!w.IsMap()) fail(w, what + ".where: expected a mapping of dotted keys, found " + shown(w));
      for (const auto& kv : w) {
        const std::string k = key(kv.first, what + ".where");
        s.where[k] = scalar_json(kv.second, what + ".where." + k);
      }
    }
    return s;
  }

  std::vector<Side> sides(const YAML::Node& node, const std::string& what) const {
    std::vector<Side> out;
    if (node.IsSequence()) {
      for (const auto& n : node) out.push_back(side(n, what));
      if (out.empty()) fail(node, what + ": empty list");
    } else {
      out.push_back(side(node, what));
    }
    return out;
  }

  std::vector<double> numbers(const YAML::Node& node, const std::string& what, Range range) const {
    std::vector<double> out;
    if (node.IsSequence())
      for (const auto& n : node) out.push_back(number(n, what, range));
    else
      out.push_back(number(node, what, range));
    if (out.empty()) fail(node, what + ": empty list");
    return out;
  }

  void require(const YAML::Node& body, const char* key, const std::string& what) const {
    if (!body[key]) fail(body, fmt::format("{}: '{}' is required", what, key));
  }

  void bounds(const YAML::Node& body, Claim& c, const std::string& what) const {
    if (body["below"]) c.below = number(body["below"], what + ".below");
    if (body["above"]) c.above = number(body["above"], what + ".above");
    if (body["below"].IsDefined() == body["above"].IsDefined())
      fail(body, what + ": exactly one of 'below' and 'above' is required");
  }

  // `at`: values of the x axis `at_x` (passes, oracle calls, time: counts and times, never < 0).
  void at(const YAML::Node& body, Claim& c, const std::string& what) const {
    if (body["at_x"]) c.at_x = str(body["at_x"], what + ".at_x");
    if (body["at"]) c.at = numbers(body["at"], what + ".at (values of " + c.at_x + ")", Range::non_negative);
  }

  Claim claim(const YAML::Node& node, std::size_t index) const {
    const std::string ctx = fmt::format("claim {}", index + 1);
    static const std::vector<std::string> kinds = {"fewer", "faster", "lower_final", "order", "share", "final", "external"};
    only_keys(node, {"id", "ref", "text", "paper", "scale", "fewer", "faster", "lower_final", "order", "share", "final",
                     "external"},
              ctx);
    Claim c;
    c.line = where(node);
    if (!node["id"]) fail(node, ctx + ": 'id' is required");
    c.id = str(node["id"], ctx + ".id");
    const std::string what = "claim '" + printable(c.id) + "'";
    if (!node["ref"]) fail(node, what + ": 'ref' (the paper's figure or table) is required");
    c.ref = str(node["ref"], what + ".ref");
    if (node["text"]) c.text = str(node["text"], what + ".text");
    if (node["paper"]) c.paper = str(node["paper"], what + ".paper");
    if (node["scale"]) {
      const std::string s = str(node["scale"], what + ".scale");
      if (s != "full" && s != "ci") fail(node["scale"], what + ".scale: expected 'full' or 'ci', found '" + printable(s) + "'");
      c.full_scale_only = s == "full";
    }
    YAML::Node body;
    for (const auto& k : kinds)
      if (node[k]) {
        if (!c.kind.empty()) fail(node[k], what + ": one claim has one kind; found '" + c.kind + "' and '" + k + "'");
        c.kind = k;
        body.reset(node[k]);
      }
    if (c.kind.empty()) fail(node, what + ": no kind (one of fewer, faster, lower_final, order, share, final, external)");
    const std::string w = what + " (" + c.kind + ")";
    if (c.kind == "fewer" || c.kind == "faster") {
      only_keys(body, {"a", "b", "x", "to", "rel", "by"}, w);
      require(body, "a", w);
      require(body, "b", w);
      require(body, "to", w);
      c.a = sides(body["a"], w + ".a");
      c.b = sides(body["b"], w + ".b");
      if (c.a.size() != 1 || c.b.size() != 1) fail(body, w + ": a and b name one series each");
      c.x = body["x"] ? str(body["x"], w + ".x") : (c.kind == "fewer" ? "oracle_calls" : "time");
      const YAML::Node to = body["to"];
      if (!to.IsMap() || to.size() != 1)
        fail(to, w + ".to: expected one {metric: level}, e.g. {gap: 1e-3}, found " + shown(to));
      for (const auto& kv : to) {
        c.to_metric = key(kv.first, w + ".to");
        if (kv.second.IsScalar() && kv.second.Scalar() == "b_final") c.to_b_final = true;
        else c.to_value = number(kv.second, w + ".to." + c.to_metric + " (a level, or b_final)");
      }
      if (body["rel"]) c.rel = number(body["rel"], w + ".rel", Range::non_negative);
      if (body["by"]) c.by = number(body["by"], w + ".by (a ratio)", Range::positive);
    } else if (c.kind == "lower_final") {
      only_keys(body, {"metric", "a", "b", "at", "at_x", "by"}, w);
      require(body, "metric", w);
      require(body, "a", w);
      require(body, "b", w);
      if (body["by"]) c.by = number(body["by"], w + ".by (a factor)", Range::positive);
      c.metric = str(body["metric"], w + ".metric");
      c.a = sides(body["a"], w + ".a");
      if (c.a.size() != 1) fail(body["a"], w + ".a: one series");
      c.b = sides(body["b"], w + ".b");
      at(body, c, w);
    } else if (c.kind == "order") {
      only_keys(body, {"metric", "ascending", "at", "at_x", "strict"}, w);
      require(body, "metric", w);
      require(body, "ascending", w);
      c.metric = str(body["metric"], w + ".metric");
      c.a = sides(body["ascending"], w + ".ascending");
      if (c.a.size() < 2) fail(body["ascending"], w + ".ascending: at least two series");
      at(body, c, w);
      if (body["strict"]) c.strict = flag(body["strict"], w + ".strict");
    } else if (c.kind == "share") {
      only_keys(body, {"a", "column", "of", "below", "above"}, w);
      require(body, "a", w);
      c.a = sides(body["a"], w + ".a");
      if (c.a.size() != 1) fail(body["a"], w + ".a: one series");
      c.x = body["column"] ? str(body["column"], w + ".column") : "oracle_time";
      c.metric = body["of"] ? str(body["of"], w + ".of") : "time";
      bounds(body, c, w);
    } else if (c.kind == "final") {
      only_keys(body, {"a", "metric", "below", "above"}, w);
      require(body, "a", w);
      require(body, "metric", w);
      c.a = sides(body["a"], w + ".a");
      if (c.a.size() != 1) fail(body["a"], w + ".a: one series");
      c.metric = str(body["metric"], w + ".metric");
      bounds(body, c, w);
    } else {  // external
      if (body.IsScalar() && !body.Scalar().empty()) c.note = body.Scalar();
      else fail(body, w + ": expected a sentence saying where this claim is measured, found " + shown(body));
    }
    return c;
  }

  bool scale(const YAML::Node& node, const std::string& what) const {
    const std::string s = str(node, what);
    if (s != "log" && s != "linear") fail(node, what + ": expected 'log' or 'linear', found '" + printable(s) + "'");
    return s == "log";
  }

  std::vector<std::string> names(const YAML::Node& node, const std::string& what) const {
    std::vector<std::string> out;
    if (node.IsScalar()) return {node.Scalar()};
    if (!node.IsSequence()) fail(node, what + ": expected a name or a list of names, found " + shown(node));
    for (const auto& n : node) out.push_back(str(n, what));
    if (out.empty()) fail(node, what + ": empty list");
    return out;
  }

  /// A series name of compare (compare/series.hpp) in the role of an x or a y axis, or the name
  /// of a raw curve column (e.g. master_time, nnz_rows: checked against the runs when drawn).
  // `any_role`: a series of either role is accepted (a trade-off figure's x).
  std::string series(const YAML::Node& node, const std::string& what, compare::SeriesDef::Role role,
                     bool any_role = false) const {
    const std::string name = str(node, what);
    const compare::SeriesDef* d = compare::find_series(name);
    const bool column = !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_@.-") == std::string::npos &&
                        std::islower(static_cast<unsigned char>(name.front()));
    if (d ? d->role != role && !any_role : !column)
      fail(node, fmt::format("{}: expected {} series ({}) or a curve column's name (lower case, digits, '_'); found '{}'", what,
                             role == compare::SeriesDef::Role::x ? "an x" : "a y", compare::series_names(role), printable(name)));
    return name;
  }

  // `figures`: [{file, ref, title, kind, experiments, solvers, x, x_scale, columns, panels: [{y, y_scale, paper, ours}]}].
  std::vector<FigureDecl> figures(const YAML::Node& node) const {
    if (!node.IsSequence() || node.size() == 0) fail(node, "figures: expected a list of figures, found " + shown(node));
    std::vector<FigureDecl> out;
    std::set<std::string> files;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node f = node[i];
      std::string what = fmt::format("figures[{}]", i);
      only_keys(f, {"file", "ref", "title", "kind", "experiments", "solvers", "x", "x_scale", "columns", "panels"}, what);
      for (const char* k : {"file", "ref", "x", "panels"})
        if (!f[k]) fail(f, fmt::format("{}: '{}' is required", what, k));
      FigureDecl d;
      d.line = where(f);
      d.file = file_name(f["file"], what + ".file", {".svg", ".png"});
      if (!files.insert(d.file).second) fail(f["file"], what + ".file: '" + printable(d.file) + "' is declared twice");
      what = "figure '" + d.file + "'";
      d.ref = str(f["ref"], what + ".ref");
      if (f["title"]) d.title = str(f["title"], what + ".title");
      if (f["experiments"]) d.experiments = names(f["experiments"], what + ".experiments");
      if (f["kind"]) {
        const std::string k = str(f["kind"], what + ".kind");
        if (k == "trade_off")
          d.kind = FigureDecl::Kind::trade_off;
        else if (k != "curves")
          fail(f["kind"], what + ".kind: expected curves or trade_off, found '" + printable(k) + "'");
      }
      if (const YAML::Node list = f["solvers"]) {
        const std::vector<YAML::Node> entries = list.IsSequence() ? std::vector<YAML::Node>(list.begin(), list.end())
                                                                  : std::vector<YAML::Node>{list};
        if (entries.empty()) fail(list, what + ".solvers: empty list");
        std::set<std::string> shown_as;
        for (std::size_t j = 0; j < entries.size(); ++j) {
          const std::string sw = fmt::format("{}.solvers[{}]", what, j);
          std::string label;
          d.solvers.push_back(side(entries[j], sw, &label));
          d.labels.push_back(label);
          // Entries sharing a legend name are one series (a solver selected at two settings);
          // a name given twice to different solvers would merge them silently.
          const std::string name = label.empty() ? d.solvers.back().solver : label;
          // Labels are matched as compare's --solver globs and joined by commas for --order.
          if (name.find_first_of(",*?[]") != std::string::npos)
            fail(entries[j], sw + ": a series name without ',', '*', '?', '[' or ']', found '" + printable(name) + "'");
          if (!label.empty() && !shown_as.insert(name).second)
            fail(entries[j], sw + ".label: '" + printable(name) + "' names two entries");
        }
      }
      // A trade-off figure's x is a value at a run's end, so any quantity (row sparsity, an
      // error) may be its x; a curve's x is an x axis of compare or a column.
      d.x = series(f["x"], what + ".x",
                   d.kind == FigureDecl::Kind::trade_off ? compare::SeriesDef::Role::y : compare::SeriesDef::Role::x,
                   d.kind == FigureDecl::Kind::trade_off);
      if (f["x_scale"]) d.log_x = scale(f["x_scale"], what + ".x_scale");
      if (const YAML::Node c = f["columns"]) {
        const double n = number(c, what + ".columns (panels per row)", Range::positive);
        if (n != std::floor(n) || n > 12)
          fail(c, what + ".columns (panels per row): expected a whole number from 1 to 12, found " + shown(c));
        d.columns = static_cast<int>(n);
      }
      const YAML::Node panels = f["panels"];
      if (!panels.IsSequence() || panels.size() == 0)
        fail(panels, what + ".panels: expected a list of panels {y, y_scale, paper, ours}, found " + shown(panels));
      for (std::size_t j = 0; j < panels.size(); ++j) {
        const YAML::Node p = panels[j];
        const std::string pw = fmt::format("{}.panels[{}]", what, j);
        only_keys(p, {"y", "y_scale", "paper", "ours"}, pw);
        for (const char* k : {"y", "paper", "ours"})
          if (!p[k]) fail(p, fmt::format("{}: '{}' is required ({})", pw, k,
                                         std::string(k) == "y" ? "the series drawn" : "one sentence for the README"));
        FigurePanel panel;
        panel.line = where(p);
        // Any series may be a panel's y: an x series too (the MultiBoost paper draws training
        // time against boosting iterations).
        panel.y = series(p["y"], pw + ".y", compare::SeriesDef::Role::y, true);
        // Suboptimalities and gaps fall over decades (log, as in the papers); errors and
        // objectives are read on a linear axis unless declared otherwise.
        panel.log_y = p["y_scale"] ? scale(p["y_scale"], pw + ".y_scale") : compare::is_convergence(panel.y);
        panel.paper = str(p["paper"], pw + ".paper");
        panel.ours = str(p["ours"], pw + ".ours");
        if (panel.paper.empty() || panel.ours.empty()) fail(p, pw + ": 'paper' and 'ours' are sentences, not empty");
        d.panels.push_back(std::move(panel));
      }
      out.push_back(std::move(d));
    }
    return out;
  }

  // `tables`: [{ref, caption, y, stat, scale, columns: [...], rows: [{name, paper: [...], cells: [...]}], note}].
  std::vector<TableDecl> tables(const YAML::Node& node) const {
    if (!node.IsSequence() || node.size() == 0) fail(node, "tables: expected a list of tables, found " + shown(node));
    std::vector<TableDecl> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node t = node[i];
      const std::string what = fmt::format("tables[{}]", i);
      only_keys(t, {"ref", "caption", "y", "stat", "scale", "columns", "rows", "note"}, what);
      for (const char* k : {"ref", "caption", "y", "columns", "rows"})
        if (!t[k]) fail(t, fmt::format("{}: '{}' is required", what, k));
      TableDecl d;
      d.line = where(t);
      d.ref = str(t["ref"], what + ".ref");
      d.caption = str(t["caption"], what + ".caption");
      d.y = series(t["y"], what + ".y", compare::SeriesDef::Role::y, true);
      const TableDecl::Stat stat = t["stat"] ? table_stat(t["stat"], what + ".stat") : TableDecl::Stat::median_range;
      if (t["scale"]) d.scale = number(t["scale"], what + ".scale", Range::positive);
      if (t["note"]) d.note = str(t["note"], what + ".note");
      d.columns = names(t["columns"], what + ".columns");
      const YAML::Node rows = t["rows"];
      if (!rows.IsSequence() || rows.size() == 0) fail(rows, what + ".rows: expected a list of rows {name, paper, cells}, found " + shown(rows));
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const YAML::Node row = rows[r];
        const std::string rw = fmt::format("{}.rows[{}]", what, r);
        only_keys(row, {"name", "paper", "cells"}, rw);
        if (!row["name"] || !row["cells"]) fail(row, rw + ": 'name' and 'cells' are required");
        TableDecl::Row out_row;
        out_row.name = str(row["name"], rw + ".name");
        const YAML::Node cells = row["cells"];
        if (!cells.IsSequence() || cells.size() != d.columns.size())
          fail(cells, fmt::format("{}.cells: expected a list of {} cells (one per column), found {}", rw, d.columns.size(), shown(cells)));
        const YAML::Node paper = row["paper"];
        if (paper && (!paper.IsSequence() || paper.size() != d.columns.size()))
          fail(paper, fmt::format("{}.paper: expected a list of {} numbers or nulls (one per column), found {}", rw, d.columns.size(), shown(paper)));
        for (std::size_t c = 0; c < cells.size(); ++c) {
          const std::string cw = fmt::format("{}.cells[{}]", rw, c);
          TableDecl::Cell cell;
          cell.stat = stat;
          const YAML::Node entry = cells[c];
          if (entry.IsMap() && entry["stat"]) cell.stat = table_stat(entry["stat"], cw + ".stat");
          cell.side = side(entry, cw, nullptr, "stat");
          if (paper && !paper[c].IsNull()) cell.paper = number(paper[c], rw + ".paper", Range::any);
          out_row.cells.push_back(std::move(cell));
        }
        d.rows.push_back(std::move(out_row));
      }
      out.push_back(std::move(d));
    }
    return out;
  }

  TableDecl::Stat table_stat(const YAML::Node& node, const std::string& what) const {
    const std::string s = str(node, what);
    if (s == "median_range") return TableDecl::Stat::median_range;
    if (s == "median") return TableDecl::Stat::median;
    if (s == "mean_std") return TableDecl::Stat::mean_std;
    if (s == "min") return TableDecl::Stat::min;
    if (s == "max") return TableDecl::Stat::max;
    fail(node, what + ": expected median_range, median, mean_std, min or max, found '" + printable(s) + "'");
  }

  // `ci`: the small-scale profile tests/claims runs: [{file: EXPERIMENT.yaml, set: [KEY=VALUE, ...]}].
  std::vector<CiRun> ci(const YAML::Node& node) const {
    if (!node.IsSequence()) fail(node, "ci: expected a list of {file, set}, found " + shown(node));
    std::vector<CiRun> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string what = fmt::format("ci[{}]", i);
      only_keys(node[i], {"file", "set"}, what);
      if (!node[i]["file"]) fail(node[i], what + ": 'file' is required");
      CiRun run;
      run.file = experiment_file(node[i]["file"], what + ".file");
      if (const YAML::Node set = node[i]["set"]) {
        if (!set.IsSequence()) fail(set, what + ".set: expected a list of KEY=VALUE, found " + shown(set));
        for (const auto& s : set) run.sets.push_back(str(s, what + ".set"));
      }
      out.push_back(std::move(run));
    }
    return out;
  }

  // `protocol`: the experiment files a full-scale reproduction runs, in order: [EXPERIMENT.yaml, ...].
  std::vector<std::string> protocol(const YAML::Node& node) const {
    if (!node.IsSequence() || node.size() == 0)
      fail(node, "protocol: expected a list of the folder's experiment files, found " +
                     (node.IsSequence() ? std::string("an empty list") : shown(node)));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string what = fmt::format("protocol[{}]", i);
      out.push_back(experiment_file(node[i], what));
      if (std::count(out.begin(), out.end(), out.back()) > 1) fail(node[i], what + ": '" + out.back() + "' is listed twice");
    }
    return out;
  }
};

}  // namespace

ClaimsFile read_claims(const std::string& path) {
  ClaimsReader r{path};
  YAML::Node root;
  try {
    root = yaml::load_file(path);  // bounded: a claims file comes with shared results
  } catch (const yaml::Error& e) {
    throw std::runtime_error(std::string(e.what()) + " (the claims file)");
  }
  ClaimsFile f;
  f.path = path;
  if (root.IsNull())
    throw std::runtime_error(path + ": no claims: the file is empty (expected a mapping with a 'claims' list)");
  r.only_keys(root, {"paper", "experiment", "protocol", "ci", "claims", "figures", "tables"}, "claims file");
  if (root["paper"]) f.paper = r.str(root["paper"], "paper");
  if (root["experiment"]) f.experiment = r.str(root["experiment"], "experiment");
  if (root["protocol"]) f.protocol = r.protocol(root["protocol"]);
  if (root["ci"]) f.ci = r.ci(root["ci"]);
  if (root["figures"]) f.figures = r.figures(root["figures"]);
  if (root["tables"]) f.tables = r.tables(root["tables"]);
  const YAML::Node claims = root["claims"];
  if (!claims) throw std::runtime_error(path + ": no claims: 'claims' (a list of claims) is missing");
  if (!claims.IsSequence()) r.fail(claims, "claims: expected a list of claims, found " + ClaimsReader::shown(claims));
  if (claims.size() == 0) r.fail(claims, "no claims: the 'claims' list is empty");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    Claim c = r.claim(claims[i], i);
    if (!ids.insert(c.id).second) r.fail(claims[i], "claim id '" + printable(c.id) + "' is used twice");
    f.claims.push_back(std::move(c));
  }
  return f;
}

}  // namespace dualgap::check
