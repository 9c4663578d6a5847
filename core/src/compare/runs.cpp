// Reading run.json files, grouping runs by problem and solver, reference bounds.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include <fnmatch.h>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "base/json_text.hpp"
#include "compare/model.hpp"
#include "base/files.hpp"
#include "run/run_files.hpp"
#include "base/hash.hpp"
#include "base/yaml.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dualgap::compare {

const std::vector<double>* Run::column(const std::string& name) const {
  auto it = curve.find(name);
  return it == curve.end() ? nullptr : &it->second;
}

bool Run::has_objective() const {
  if (auto* p = column("primal"))
    for (double v : *p)
      if (std::isfinite(v)) return true;
  return false;
}

std::size_t Run::checkpoints() const {
  if (auto* p = column("passes")) return p->size();
  return curve.empty() ? 0 : curve.begin()->second.size();
}


namespace {

std::string string_or(const json& doc, const char* key, const std::string& fallback = "") {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string compact(const json& v) {
  std::string s = json_text(v);
  s.erase(std::remove(s.begin(), s.end(), '"'), s.end());
  return s;
}

// "ssvm structured_hinge lambda=0.0016": the objective's terms (objective_terms), short enough
// for a label (nested objects such as the oracle are named by the rest of the label).
std::string objective_label(const json& objective) {
  std::string out;
  for (const auto& [k, text] : objective_terms(objective)) out += (out.empty() ? "" : " ") + text;
  return out;
}

std::string problem_label(const Run& run, bool experiment_has_several) {
  std::string label = run.experiment.empty() ? std::string("runs") : run.experiment;
  const json& c = run.problem_config;
  std::vector<std::string> parts;
  if (c.contains("data") && c["data"].is_object()) {
    std::string d = string_or(c["data"], "plugin");
    if (const std::string f = data_file_name(c); !f.empty()) d += "(" + f + ")";
    if (!d.empty()) parts.push_back(d);
  }
  if (c.contains("oracle") && c["oracle"].is_object()) {
    std::string o = string_or(c["oracle"], "plugin");
    if (!o.empty()) parts.push_back(o);
  }
  if (c.contains("problem") && !c["problem"].is_null() && !(c["problem"].is_object() && c["problem"].empty()))
    parts.push_back(compact(c["problem"]));
  if (std::string o = objective_label(run.objective); !o.empty()) parts.push_back(o);
  for (const auto& p : parts) label += " | " + p;
  // Keep labels short; the key disambiguates problems of one experiment that look alike.
  if (experiment_has_several) label += " [" + run.problem_key.substr(0, 8) + "]";
  return label;
}

}  // namespace

std::string problem_key_of(const json& doc) {
  auto it = doc.find("problem_key");
  if (it != doc.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  json config = doc.value("config", json::object());
  if (config.is_object())
    for (const char* k : {"solver", "solvers", "seed", "repeat", "repeats", "stop", "record", "name"}) config.erase(k);
  return "cfg-" + hex64(hash64(json_text(config)));
}

Run parse_run(RunFile file) {
  // The document was checked against the run.json schema (run/run_files.hpp): every key read
  // below has its type when present.
  const json& doc = file.doc;
  const std::string& path = file.path;
  Run run;
  run.path = path;
  run.experiment = string_or(doc, "experiment");
  run.run_id = string_or(doc, "run_id", fs::path(path).parent_path().filename().string());
  const json config = doc.value("config", json::object());
  std::string config_solver;
  if (config.is_object() && config.contains("solver") && config["solver"].is_object())
    config_solver = string_or(config["solver"], "name", string_or(config["solver"], "plugin"));
  run.solver_name = string_or(doc, "solver", config_solver.empty() ? std::string("?") : config_solver);
  run.solver = string_or(doc, "label", run.solver_name);
  run.objective_key = string_or(doc, "objective_key");
  if (auto o = doc.find("objective"); o != doc.end() && o->is_object()) run.objective = *o;
  if (auto r = doc.find("repeat"); r != doc.end() && r->is_number_integer()) run.repeat = r->get<int>();
  else if (config.is_object() && config.contains("repeat") && config["repeat"].is_number_integer())
    run.repeat = config["repeat"].get<int>();
  if (config.is_object() && config.contains("seeds")) run.seeds = config["seeds"];
  if (auto i = doc.find("solver_index"); i != doc.end() && i->is_number_integer()) run.solver_index = i->get<int>();
  run.status = string_or(doc, "status", "unknown");
  run.message = string_or(doc, "message");
  run.bound_key = problem_key_of(doc);
  run.keyed_by_data = doc.contains("data_content_hash");
  {
    auto g = doc.find("group_key");
    run.data_key = g != doc.end() && g->is_string() && !g->get<std::string>().empty() ? g->get<std::string>()
                                                                                       : run.bound_key;
  }
  // Runs of different objectives on the same data are different problems: a bound of one (its
  // best primal or certified dual) says nothing about the other's optimum.
  const std::string objective_suffix = run.objective_key.empty() ? "" : "|" + run.objective_key;
  run.problem_key = run.data_key + objective_suffix;
  run.bound_key += objective_suffix;
  run.approximate = doc.value("approximate", false);
  if (auto sm = doc.find("sampling"); sm != doc.end() && sm->is_object()) run.sampling = *sm;
  if (config.is_object())
    for (const char* k : {"data", "features", "oracle", "problem", "file"})
      if (config.contains(k)) run.problem_config[k] = config[k];
  if (config.is_object())
    for (const char* k : {"stop", "sets"})
      if (config.contains(k)) run.protocol[k] = config[k];
  // A run.json without a recorded solver section (an older or damaged file) cannot tell its
  // configuration: its series_config stays empty and it joins its label's series.
  if (config.is_object() && config.contains("solver")) {
    json series = {{"experiment", run.experiment}};
    for (const char* k : {"solver", "stop", "record"})
      if (config.contains(k)) series[k] = config[k];
    run.series_config = json_text(series);
  }

  run.curve = std::move(file.columns);
  auto summary = doc.find("summary");
  if (summary != doc.end() && summary->is_object())
    for (auto& [name, v] : summary->items())
      if (v.is_number()) run.summary[name] = v.get<double>();
  return run;
}

namespace {

// The position of each solver name in its experiment's YAML `solvers` list, read from the file
// the run was configured from (config.file) when it is still there; cached per file.
void fill_solver_index(std::vector<Run>& runs) {
  std::map<std::string, std::vector<std::string>> names_of_file;
  for (Run& run : runs) {
    if (run.solver_index >= 0) continue;
    const std::string file = string_or(run.problem_config, "file");
    if (file.empty()) continue;
    auto it = names_of_file.find(file);
    if (it == names_of_file.end()) {
      std::vector<std::string> names;
      try {
        // yaml::load_file, not load_yaml: only the names are needed, and ${VAR} expansion
        // would fail where the experiment's variables (DUALGAP_DATA) are not set. The file is
        // named by the results folder: bounded like every YAML read (no FIFO, no alias bomb).
        const YAML::Node doc = yaml::load_file(file);
        if (doc["solvers"] && doc["solvers"].IsSequence())
          for (const auto& s : doc["solvers"])
            names.push_back(s.IsMap() && s["name"] && s["name"].IsScalar() ? s["name"].as<std::string>() : "");
      } catch (const std::exception&) {
        // moved or edited results: fall back to the order of first appearance
      }
      it = names_of_file.emplace(file, std::move(names)).first;
    }
    auto pos = std::find(it->second.begin(), it->second.end(), run.solver_name);
    if (pos != it->second.end()) run.solver_index = static_cast<int>(pos - it->second.begin());
  }
}

// Series labels in display order: an explicit list first, then by solver_index (config order)
// or by name, ties by first appearance (sorted run paths: B[M=1] before B[M=2]).
std::vector<std::string> order_labels(const std::vector<Run>& runs, const std::string& order) {
  std::vector<std::string> labels;
  std::map<std::string, int> index;
  for (const Run& r : runs) {
    if (std::find(labels.begin(), labels.end(), r.solver) == labels.end()) {
      labels.push_back(r.solver);
      index[r.solver] = r.solver_index;
    } else if (r.solver_index >= 0 && (index[r.solver] < 0 || r.solver_index < index[r.solver])) {
      index[r.solver] = r.solver_index;
    }
  }
  std::vector<std::string> first = labels;
  auto appearance = [&](const std::string& l) { return std::find(first.begin(), first.end(), l) - first.begin(); };
  std::vector<std::string> listed;
  if (order != "config" && order != "name") {
    std::stringstream ss(order);
    std::string item;
    while (std::getline(ss, item, ','))
      if (std::find(labels.begin(), labels.end(), item) != labels.end()) listed.push_back(item);
  }
  auto rank = [&](const std::string& l) {
    auto p = std::find(listed.begin(), listed.end(), l);
    return p == listed.end() ? static_cast<long>(listed.size()) : static_cast<long>(p - listed.begin());
  };
  std::stable_sort(labels.begin(), labels.end(), [&](const std::string& a, const std::string& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (order == "name") return a < b;
    const int ia = index[a] < 0 ? INT32_MAX : index[a], ib = index[b] < 0 ? INT32_MAX : index[b];
    if (ia != ib) return ia < ib;
    return appearance(a) < appearance(b);
  });
  return labels;
}

bool matches_any(const std::vector<std::string>& globs, std::initializer_list<std::string> names) {
  for (const auto& g : globs)
    for (const auto& n : names)
      if (fnmatch(g.c_str(), n.c_str(), 0) == 0) return true;
  return false;
}

// The first top-level key in which two series_config texts differ, for the refusal below.
std::string first_difference(const std::string& a_text, const std::string& b_text) {
  const json a = json::parse(a_text), b = json::parse(b_text);
  for (const auto& [k, v] : a.items())
    if (!b.contains(k) || b[k] != v) return k;
  for (const auto& [k, v] : b.items())
    if (!a.contains(k)) return k;
  return "?";
}

// A series (one label of one problem) is the repeats of one configuration. Two experiment files
// may share a problem and a label (a column-generation run and a fixed restricted problem, both
// "FCD-1"): drawn as one series, each point would be a median over two different experiments
// and its band would span both. Such a problem is split by experiment, so that each experiment
// is a panel (titled by it) and a series never mixes them. Runs of one experiment whose label is
// shared by different configurations (another budget, another solver setting under one name:
// results of two versions of the file in one folder) cannot be told apart by a panel: refused,
// naming both files and the key in which they differ.
void separate_series(std::vector<Run>& runs) {
  // (problem, label) -> one run per distinct configuration
  std::map<std::pair<std::string, std::string>, std::vector<const Run*>> configs;
  for (const Run& run : runs) {
    if (run.series_config.empty()) continue;
    auto& seen = configs[{run.problem_key, run.solver}];
    if (std::none_of(seen.begin(), seen.end(), [&](const Run* r) { return r->series_config == run.series_config; }))
      seen.push_back(&run);
  }
  std::set<std::string> split;
  for (const auto& [key, seen] : configs) {
    if (seen.size() < 2) continue;
    for (std::size_t i = 0; i < seen.size(); ++i)
      for (std::size_t j = i + 1; j < seen.size(); ++j)
        if (seen[i]->experiment == seen[j]->experiment)
          throw std::runtime_error(fmt::format(
              "{} and {} are both the series '{}' of experiment '{}' but differ in config.{}: one series is the "
              "repeats of one configuration; compare them apart (another results folder, --solver, --problem) or "
              "give them different solver names",
              seen[i]->path, seen[j]->path, key.second, seen[i]->experiment,
              first_difference(seen[i]->series_config, seen[j]->series_config)));
    split.insert(key.first);
  }
  for (Run& run : runs)
    if (split.count(run.problem_key)) {
      run.problem_key += "|experiment:" + run.experiment;
      run.data_key += "|experiment:" + run.experiment;
    }
}

}  // namespace

void select_runs(RunSet& set, const Selection& selection) {
  // Colours follow the config order of every label read, whatever --order and --solver say.
  group_runs(set, "config");
  set.palette = set.solvers;
  if (!selection.solvers.empty() || !selection.problems.empty()) {
    std::vector<Run> kept;
    for (Run& run : set.runs) {
      if (!selection.solvers.empty() && !matches_any(selection.solvers, {run.solver, run.solver_name})) continue;
      if (!selection.problems.empty() &&
          !matches_any(selection.problems, {set.problems[run.problem].label, run.problem_key, run.bound_key}))
        continue;
      kept.push_back(std::move(run));
    }
    if (kept.empty()) {
      std::string globs;
      for (const auto& g : selection.solvers) globs += " --solver " + g;
      for (const auto& g : selection.problems) globs += " --problem " + g;
      throw std::runtime_error(fmt::format("no run matches{} (of {} runs read)", globs, set.runs.size()));
    }
    set.runs = std::move(kept);
  }
  group_runs(set, selection.order);
}

void group_runs(RunSet& set, const std::string& order) {
  set.problems.clear();
  set.solvers.clear();
  fill_solver_index(set.runs);
  separate_series(set.runs);
  std::map<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < set.runs.size(); ++i) {
    Run& run = set.runs[i];
    auto [it, inserted] = by_key.emplace(run.problem_key, set.problems.size());
    if (inserted) {
      Problem p;
      p.key = run.problem_key;
      set.problems.push_back(std::move(p));
    }
    run.problem = it->second;
    set.problems[it->second].runs.push_back(i);
  }
  set.solvers = order_labels(set.runs, order);
  std::map<std::string, int> problems_per_experiment;
  for (auto& p : set.problems) problems_per_experiment[set.runs[p.runs.front()].experiment]++;

  // Reference bounds per exact problem (bound_key), then per group for display.
  std::map<std::string, std::pair<double, double>> bounds;  // bound_key -> (upper, lower)
  for (const Run& run : set.runs) {
    auto& [upper, lower] = bounds.try_emplace(run.bound_key, kNaN, kNaN).first->second;
    if (auto* primal = run.column("primal"))
      for (double v : *primal)
        if (std::isfinite(v) && !(v >= upper)) upper = v;
    auto s = run.summary.find("primal");
    if (s != run.summary.end() && std::isfinite(s->second) && !(s->second >= upper)) upper = s->second;
    if (auto* dual = run.column("dual"))
      for (double v : *dual)
        if (std::isfinite(v) && !(v <= lower)) lower = v;
    s = run.summary.find("dual");
    if (s != run.summary.end() && std::isfinite(s->second) && !(s->second <= lower)) lower = s->second;
  }
  // problem.reference: for an objective without a certified dual, the bound that
  // suboptimality is measured against is a known optimum ({value: F}) or the best primal a named
  // solver reached on the same exact problem ({solver: NAME}).
  std::map<std::string, std::string> reference_notes;  // bound_key -> what the bound is
  for (const Run& run : set.runs) {
    const auto ref = run.objective.is_object() ? run.objective.value("reference", nlohmann::json()) : nlohmann::json();
    if (!ref.is_object() || reference_notes.count(run.bound_key)) continue;
    double& lower = bounds[run.bound_key].second;
    if (ref.contains("value") && ref["value"].is_number()) {
      lower = ref["value"].get<double>();
      reference_notes[run.bound_key] = fmt::format("problem.reference: the known value {}", lower);
    } else if (ref.contains("solver") && ref["solver"].is_string()) {
      const std::string name = ref["solver"];
      double best = kNaN;
      for (const Run& other : set.runs)
        if (other.bound_key == run.bound_key && (other.solver == name || other.solver_name == name))
          if (auto* primal = other.column("primal"))
            for (double v : *primal)
              if (std::isfinite(v) && !(v >= best)) best = v;
      lower = best;
      reference_notes[run.bound_key] =
          std::isfinite(best) ? fmt::format("problem.reference: the best primal of solver {} ({})", name, best)
                              : fmt::format("problem.reference: solver {} recorded no primal here", name);
    }
  }
  for (Run& run : set.runs) std::tie(run.best_upper, run.best_lower) = bounds[run.bound_key];

  for (auto& p : set.problems) {
    // The group's bounds are those of its exact problems (data splits): with one split they are
    // the problem's best bounds; with several, each split keeps its own (the lowest primal of one
    // split and the highest dual of another say nothing about each other).
    std::vector<std::string> seen;
    for (std::size_t r : p.runs) {
      const Run& run = set.runs[r];
      p.approximate = p.approximate || run.approximate;
      p.has_dual = p.has_dual || std::isfinite(run.best_lower);
      if (std::find(seen.begin(), seen.end(), run.bound_key) != seen.end()) continue;
      seen.push_back(run.bound_key);
      p.split_bounds.emplace_back(run.best_upper, run.best_lower);
    }
    if (p.split_bounds.size() == 1) std::tie(p.best_upper, p.best_lower) = p.split_bounds.front();
    if (p.split_bounds.size() > 1 &&
        std::any_of(p.runs.begin(), p.runs.end(), [&](std::size_t r) { return !set.runs[r].keyed_by_data; }))
      p.note += std::string(p.note.empty() ? "" : " ") +
                "Some of these runs recorded no data content hash (written by an older dualgap): they are keyed by "
                "their data and feature seeds, so repeats on one fixed train/test split show as different splits; "
                "run them again to group them by their data.";
    for (const auto& solver : set.solvers)
      for (std::size_t r : p.runs)
        if (set.runs[r].solver == solver) {
          p.solvers.push_back(solver);
          break;
        }
    const Run& first = set.runs[p.runs.front()];
    p.objective_key = first.objective_key;
    if (auto note = reference_notes.find(first.bound_key); note != reference_notes.end())
      p.note = "Suboptimality is measured against " + note->second + " (no certified dual).";
    p.label = problem_label(first, problems_per_experiment[first.experiment] > 1);
    // Sampling mode: such a series is a sequence of restarts, not one run's trajectory.
    std::vector<std::string> sampled;
    std::string budget;
    for (std::size_t r : p.runs)
      if (const Run& run = set.runs[r]; run.sampling.is_object()) {
        if (std::find(sampled.begin(), sampled.end(), run.solver) == sampled.end()) sampled.push_back(run.solver);
        budget = run.sampling.value("budget", std::string("budget"));
      }
    if (!sampled.empty()) {
      std::string names;
      for (const auto& s : sampled) names += (names.empty() ? "" : ", ") + s;
      p.note += std::string(p.note.empty() ? "" : " ") +
                fmt::format("{} {} a sequence of restarts (sampling mode): each point is a fresh run of the library "
                            "with a larger budget ({}), at that run's own time and counters, not one trajectory.",
                            names, sampled.size() > 1 ? "are" : "is", budget);
    }
  }
  // Problems on the same data with different objectives: say why they are apart.
  std::map<std::string, std::vector<std::size_t>> by_data;
  for (std::size_t i = 0; i < set.problems.size(); ++i) by_data[set.runs[set.problems[i].runs.front()].data_key].push_back(i);
  for (auto& [data, list] : by_data)
    if (list.size() > 1)
      for (std::size_t i : list)
        set.problems[i].note += std::string(set.problems[i].note.empty() ? "" : " ") + fmt::format(
            "Objective {} is shown apart from {} other objective(s) on the same data: runs of different "
            "objectives are never measured against one bound.",
            set.problems[i].objective_key.empty() ? std::string("(unnamed)") : set.problems[i].objective_key,
            list.size() - 1);
  title_problems(set);
}

RunSet load_runs(const std::vector<std::string>& inputs) {
  RunSet set;
  const auto files = find_run_files(inputs);
  // Parsing dominates for thousands of runs: split the files over a few threads.
  std::vector<std::optional<Run>> parsed(files.size());
  std::vector<std::string> errors(files.size());
  auto work = [&](std::size_t begin, std::size_t step) {
    for (std::size_t i = begin; i < files.size(); i += step) {
      try {
        parsed[i] = parse_run(read_run_file(files[i].string(), CurveMode::columns));
      } catch (const std::exception& e) {
        errors[i] = std::string(e.what()) + " (skipped)";
      }
    }
  };
  const std::size_t threads =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::min<std::size_t>(8, files.size() / 64 + 1));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t, threads);
  work(0, threads);
  for (auto& t : pool) t.join();
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (parsed[i]) set.runs.push_back(std::move(*parsed[i]));
    else set.warnings.push_back(errors[i]);
  }
  group_runs(set);
  set.palette = set.solvers;
  return set;
}

}  // namespace dualgap::compare
