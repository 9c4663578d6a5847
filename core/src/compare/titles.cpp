// The names a figure gives its rows. A row is a problem of the run set; its title says what
// tells it apart from the other rows ("bcd-fig2-4-mnist | lambda=0.001"), not everything about
// it: the full identity of a problem is its label (runs.cpp), which tables and the report show.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/hash.hpp"
#include "compare/model.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dualgap::compare {

namespace {

/// A run's data section: run.json nests the dataset's keys under `params`; a configuration read
/// from YAML has them beside `plugin`.
const json& data_params(const json& config) {
  static const json none = json::object();
  auto d = config.find("data");
  if (d == config.end() || !d->is_object()) return none;
  auto p = d->find("params");
  return p != d->end() && p->is_object() ? *p : *d;
}

// The keys of a data section that name files, not settings.
bool names_a_file(const std::string& key) {
  return key == "train" || key == "test" || key == "name" || key == "path" || key == "dir" || key == "validation";
}

std::string shown_scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return fmt::format("{:.3g}", v.get<double>());
  return "";
}

using Facts = std::vector<std::pair<std::string, std::string>>;  // (what, as a title shows it)

/// What a title may say about a run, in the order a title says it: its experiment, its data set,
/// feature generators and oracle, its objective's terms, then its data set's settings.
Facts facts_of(const Run& run) {
  Facts f;
  f.emplace_back("experiment", run.experiment);
  f.emplace_back("data", data_name(run));
  const json& c = run.problem_config;
  std::string features;
  if (auto it = c.find("features"); it != c.end() && it->is_array())
    for (const auto& g : *it)
      if (g.is_object() && g.contains("plugin") && g["plugin"].is_string())
        features += (features.empty() ? "" : "+") + g["plugin"].get<std::string>();
  f.emplace_back("features", features);
  if (auto it = c.find("oracle"); it != c.end() && it->is_object() && it->contains("plugin") && (*it)["plugin"].is_string())
    f.emplace_back("oracle", (*it)["plugin"].get<std::string>());
  for (auto& [k, shown] : objective_terms(run.objective)) f.emplace_back("objective." + k, shown);
  for (auto& [k, v] : data_params(c).items())
    if (!names_a_file(k) && k != "plugin" && (v.is_primitive() && !v.is_null())) f.emplace_back("data." + k, k + "=" + shown_scalar(v));
  return f;
}

}  // namespace

std::string data_file_name(const json& config) {
  const json& params = data_params(config);
  for (const char* k : {"train", "name", "path", "dir"})
    if (auto it = params.find(k); it != params.end() && it->is_string() && !it->get<std::string>().empty()) {
      fs::path p(it->get<std::string>());
      if (p.filename().empty()) p = p.parent_path();  // "dir/": its name
      return p.filename().string();
    }
  return "";
}

std::string data_name(const Run& run) {
  std::string file = data_file_name(run.problem_config);
  if (!file.empty()) return file;
  // A results folder is not trusted to have written a string there: json::value would throw.
  auto d = run.problem_config.find("data");
  if (d == run.problem_config.end() || !d->is_object()) return "";
  auto plugin = d->find("plugin");
  return plugin != d->end() && plugin->is_string() ? plugin->get<std::string>() : std::string();
}

std::vector<std::pair<std::string, std::string>> objective_terms(const json& objective) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!objective.is_object()) return out;
  const auto named = [](const std::string& k) { return k == "family" || k == "loss" || k == "link"; };
  for (const char* k : {"family", "loss", "link"})
    if (auto it = objective.find(k); it != objective.end() && it->is_string()) out.emplace_back(k, it->get<std::string>());
  for (auto& [k, v] : objective.items())
    if (v.is_string() && !named(k)) out.emplace_back(k, v.get<std::string>());
  for (auto& [k, v] : objective.items())
    if (v.is_number()) out.emplace_back(k, k + "=" + shown_scalar(v));
  return out;
}

void title_problems(RunSet& set) {
  const std::size_t n = set.problems.size();
  // Each row's facts that hold for every run of it: a row of several objectives (a trade-off's
  // row, a row of task measures) is titled by its data, never by its first run's objective.
  std::vector<std::map<std::string, std::string>> row(n);
  std::vector<std::string> order;  // the fact names, in the order a title says them
  for (std::size_t i = 0; i < n; ++i) {
    bool first = true;
    for (std::size_t r : set.problems[i].runs) {
      const Facts facts = facts_of(set.runs[r]);
      for (const auto& [what, shown] : facts)
        if (std::find(order.begin(), order.end(), what) == order.end()) order.push_back(what);
      const std::map<std::string, std::string> these(facts.begin(), facts.end());
      if (first) row[i] = these;
      first = false;
      for (auto it = row[i].begin(); it != row[i].end();) {  // keep what this run shares
        const auto same = these.find(it->first);
        it = same != these.end() && same->second == it->second ? std::next(it) : row[i].erase(it);
      }
    }
  }
  // Facts in title order, each kept when it separates rows the kept ones do not.
  std::vector<std::string> parts(n), groups(n);  // groups: the kept facts' values, as a key
  for (const auto& what : order) {
    std::map<std::string, std::set<std::string>> values;  // group -> this fact's values in it
    for (std::size_t i = 0; i < n; ++i) {
      auto it = row[i].find(what);
      values[groups[i]].insert(it == row[i].end() ? std::string("\x01") : it->second);
    }
    const bool separates = std::any_of(values.begin(), values.end(), [](const auto& g) { return g.second.size() > 1; });
    if (!separates) continue;
    for (std::size_t i = 0; i < n; ++i) {
      auto it = row[i].find(what);
      const std::string shown = it == row[i].end() ? std::string() : it->second;
      groups[i] += '\x02' + shown;
      if (!shown.empty()) parts[i] += (parts[i].empty() ? "" : " | ") + shown;
    }
  }
  // Rows no stated fact tells apart (the same configuration on other data, say) keep a short
  // hash of their key.
  std::map<std::string, int> same;
  for (std::size_t i = 0; i < n; ++i) ++same[groups[i]];
  for (std::size_t i = 0; i < n; ++i) {
    std::string& t = set.problems[i].title = parts[i];
    if (same[groups[i]] > 1) t += (t.empty() ? "[" : " [") + hex64(hash64(set.problems[i].key)).substr(0, 8) + "]";
  }
}

}  // namespace dualgap::compare
