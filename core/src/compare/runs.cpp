// Reading run.json files, grouping runs by problem and solver, reference bounds.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "compare/model.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dualgap::compare {

const std::vector<double>* Run::column(const std::string& name) const {
  auto it = curve.find(name);
  return it == curve.end() ? nullptr : &it->second;
}

std::vector<fs::path> find_run_files(const std::vector<std::string>& inputs) {
  std::vector<fs::path> files;
  for (const auto& input : inputs) {
    fs::path p(input);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec) && it->path().filename() == "run.json") files.push_back(it->path());
      }
    } else {
      throw std::runtime_error(fmt::format("{}: no such file or directory", input));
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

namespace {

// FNV-1a: stable across platforms and runs, unlike std::hash.
std::string fnv1a_hex(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

double number_or_nan(const json& v) {
  return v.is_number() ? v.get<double>() : kNaN;
}

std::string string_or(const json& doc, const char* key, const std::string& fallback = "") {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string compact(const json& v) {
  std::string s = v.dump();
  s.erase(std::remove(s.begin(), s.end(), '"'), s.end());
  return s;
}

std::string problem_label(const Run& run, bool experiment_has_several) {
  std::string label = run.experiment.empty() ? std::string("runs") : run.experiment;
  const json& c = run.problem_config;
  std::vector<std::string> parts;
  if (c.contains("data") && c["data"].is_object()) {
    std::string d = string_or(c["data"], "plugin");
    for (const char* k : {"train", "name", "path"}) {
      std::string f = string_or(c["data"], k);
      if (!f.empty()) {
        d += "(" + fs::path(f).filename().string() + ")";
        break;
      }
    }
    if (!d.empty()) parts.push_back(d);
  }
  if (c.contains("oracle") && c["oracle"].is_object()) {
    std::string o = string_or(c["oracle"], "plugin");
    if (!o.empty()) parts.push_back(o);
  }
  if (c.contains("problem") && !c["problem"].is_null() && !(c["problem"].is_object() && c["problem"].empty()))
    parts.push_back(compact(c["problem"]));
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
  return "cfg-" + fnv1a_hex(config.dump());
}

Run parse_run(const json& doc, const std::string& path) {
  if (!doc.is_object()) throw std::runtime_error(path + ": not a JSON object");
  std::string schema = string_or(doc, "schema");
  if (schema.rfind("dualgap.run/", 0) != 0)
    throw std::runtime_error(path + ": schema is \"" + schema + "\", expected dualgap.run/1");
  Run run;
  run.path = path;
  run.experiment = string_or(doc, "experiment");
  run.run_id = string_or(doc, "run_id", fs::path(path).parent_path().filename().string());
  const json config = doc.value("config", json::object());
  std::string config_solver;
  if (config.is_object() && config.contains("solver") && config["solver"].is_object())
    config_solver = string_or(config["solver"], "name", string_or(config["solver"], "plugin"));
  run.solver = string_or(doc, "solver", config_solver.empty() ? std::string("?") : config_solver);
  run.status = string_or(doc, "status", "unknown");
  run.message = string_or(doc, "message");
  run.problem_key = problem_key_of(doc);
  run.approximate = doc.value("approximate", false);
  if (config.is_object())
    for (const char* k : {"data", "features", "oracle", "problem"})
      if (config.contains(k)) run.problem_config[k] = config[k];

  auto curve = doc.find("curve");
  std::size_t length = 0;
  if (curve != doc.end() && curve->is_object()) {
    for (auto& [name, values] : curve->items()) {
      if (!values.is_array()) continue;
      bool numeric = false;
      std::vector<double> column;
      column.reserve(values.size());
      for (const auto& v : values) {
        if (v.is_number()) numeric = true;
        column.push_back(number_or_nan(v));
      }
      if (!numeric && !values.empty() && !values[0].is_null()) continue;  // e.g. string columns
      length = std::max(length, column.size());
      run.curve.emplace(name, std::move(column));
    }
  }
  for (auto& [name, column] : run.curve) column.resize(length, kNaN);  // ragged: pad, never crash
  auto summary = doc.find("summary");
  if (summary != doc.end() && summary->is_object())
    for (auto& [name, v] : summary->items())
      if (v.is_number()) run.summary[name] = v.get<double>();
  return run;
}

void group_runs(RunSet& set) {
  set.problems.clear();
  set.solvers.clear();
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
    if (std::find(set.solvers.begin(), set.solvers.end(), run.solver) == set.solvers.end())
      set.solvers.push_back(run.solver);
  }
  std::map<std::string, int> problems_per_experiment;
  for (auto& p : set.problems) problems_per_experiment[set.runs[p.runs.front()].experiment]++;

  for (auto& p : set.problems) {
    double upper = kNaN, lower = kNaN;
    for (std::size_t r : p.runs) {
      const Run& run = set.runs[r];
      p.approximate = p.approximate || run.approximate;
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
    p.best_upper = upper;
    p.best_lower = lower;
    p.has_dual = std::isfinite(lower);
    for (const auto& solver : set.solvers)
      for (std::size_t r : p.runs)
        if (set.runs[r].solver == solver) {
          p.solvers.push_back(solver);
          break;
        }
    const Run& first = set.runs[p.runs.front()];
    p.label = problem_label(first, problems_per_experiment[first.experiment] > 1);
  }
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
        std::ifstream in(files[i], std::ios::binary);
        if (!in) throw std::runtime_error(files[i].string() + ": cannot open");
        std::ostringstream buffer;
        buffer << in.rdbuf();
        json doc = json::parse(buffer.str());
        parsed[i] = parse_run(doc, files[i].string());
      } catch (const json::exception& e) {
        errors[i] = files[i].string() + ": invalid JSON: " + e.what();
      } catch (const std::exception& e) {
        errors[i] = e.what();
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
  return set;
}

}  // namespace dualgap::compare
