// Whether the runs a verdict reads are at the claim's scale: the protocol recorded in each
// run.json (its expanded stop section and data parameters, its --set overrides, the repeats
// present) against the one the claims file states (the experiment file of its folder, with the
// `ci` profile's --set values at CI scale). A user who cut a run with --set repeats=2 --set
// stop.max_time=4 gets "holds (not at the claim's scale: repeats 2 not 10, stop.max_time 4 not
// 60)", never a bare "holds".
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "check/claims.hpp"
#include "experiment/config.hpp"
#include "experiment/config_checks.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dualgap::check {

namespace {

std::string shown(const json& v) {
  if (v.is_null()) return "none";
  if (v.is_number()) return fmt::format("{:g}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return json_text(v);
}

bool same(const json& a, const json& b) {
  auto number = [](const json& v, double& out) {
    if (v.is_number()) {
      out = v.get<double>();
      return true;
    }
    if (v.is_string()) try {
        std::size_t used = 0;
        out = std::stod(v.get<std::string>(), &used);
        return used == v.get<std::string>().size();
      } catch (const std::exception&) {
      }
    return false;
  };
  double x = 0, y = 0;
  if (number(a, x) && number(b, y)) return x == y || std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  return json_text(a) == json_text(b);
}

/// KEY -> value of a run's --set overrides (config.sets), parsed as the runner parsed them.
std::map<std::string, json> run_sets(const compare::Run& run) {
  std::map<std::string, json> out;
  const json sets = run.protocol.value("sets", json::array());
  if (!sets.is_array()) return out;
  for (const auto& s : sets) {
    if (!s.is_string()) continue;
    const std::string text = s.get<std::string>();
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    try {
      out[text.substr(0, eq)] = parse_yaml_value(text.substr(eq + 1));
    } catch (const std::exception&) {
      // an override the runner accepted always parses; a damaged record is not compared
    }
  }
  return out;
}

/// The experiment documents the claims state for `yaml` (a file of the claims folder): the file
/// as written (variables unexpanded: no path is compared) and the one expected of the runs, which
/// at CI scale has the ci profile's overrides; durations in seconds as the runner records them.
/// Nulls when the file cannot be read.
struct Expected {
  json as_written, expected;
};

Expected expected_documents(const ClaimsFile& file, const fs::path& yaml, bool ci_scale) {
  auto seconds = [](json& doc) {
    json& stop = doc["stop"];
    if (stop.is_null()) stop = json::object();
    if (stop.is_object()) checks::normalize_durations(stop, [](const std::string&) { return std::string(); });
  };
  try {
    LocatedJson doc = load_yaml(yaml.string(), false);
    if (!doc.value.is_object()) return {};
    Expected out;
    out.as_written = doc.value;
    seconds(out.as_written);
    if (ci_scale)
      for (const CiRun& ci : file.ci)
        if (fs::path(ci.file).filename() == yaml.filename()) apply_overrides(doc, ci.sets);
    out.expected = std::move(doc.value);
    seconds(out.expected);
    return out;
  } catch (const std::exception&) {
    return {};  // a folder's file that does not read is validate's to report, not check's
  }
}

/// The recorded value of a protocol key in a run (null when it did not record it).
json recorded(const compare::Run& run, const std::string& section, const std::string& key) {
  if (section == "stop") {
    const json stop = run.protocol.value("stop", json::object());
    return stop.is_object() && stop.contains(key) ? stop[key] : json(nullptr);
  }
  const json data = run.problem_config.value("data", json::object());
  if (!data.is_object()) return nullptr;
  if (data.contains("params") && data["params"].is_object() && data["params"].contains(key)) return data["params"][key];
  return data.contains(key) && key != "plugin" ? data[key] : json(nullptr);
}

}  // namespace

std::vector<std::string> scale_differences(const ClaimsFile& file, const std::vector<const compare::Run*>& runs,
                                           bool ci_scale) {
  const fs::path folder = fs::path(file.path).parent_path();
  // Runs by the experiment file they were made from, when the claims folder holds it.
  std::map<std::string, std::vector<const compare::Run*>> by_file;
  for (const compare::Run* r : runs) {
    const std::string made_from = r->problem_config.value("file", std::string());
    if (made_from.empty()) continue;
    const fs::path yaml = folder / fs::path(made_from).filename();
    std::error_code ec;
    if (fs::is_regular_file(yaml, ec)) by_file[yaml.string()].push_back(r);
  }
  std::vector<std::string> out;
  auto add = [&](const std::string& key, const std::set<std::string>& actual, const json& expected) {
    if (actual.empty()) return;
    std::string item = key + " " + fmt::format("{}", fmt::join(actual, ", "));
    item += expected.is_null() ? " (the experiment file sets none)" : " not " + shown(expected);
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  };
  for (const auto& [yaml, group] : by_file) {
    const auto [as_written, expected] = expected_documents(file, yaml, ci_scale);
    if (!expected.is_object() || !as_written.is_object()) continue;
    // repeats: the repeats present of each series the claim reads (the smallest count shown)
    {
      std::map<std::string, std::set<int>> repeats;
      for (const compare::Run* r : group) repeats[r->solver].insert(r->repeat);
      std::size_t fewest = SIZE_MAX;
      for (const auto& [label, set] : repeats) fewest = std::min(fewest, set.size());
      const json want = expected.contains("repeats") ? expected["repeats"] : json(1);
      if (fewest != SIZE_MAX && !same(json(fewest), want)) add("repeats", {std::to_string(fewest)}, want);
    }
    // stop and data keys: those the file (with the profile) states, and those a run overrode
    std::map<std::string, std::set<std::string>> keys;  // section -> keys
    for (const char* section : {"stop", "data"})
      if (expected.contains(section) && expected[section].is_object())
        for (auto& [k, v] : expected[section].items()) keys[section].insert(k);
    std::vector<std::map<std::string, json>> sets;
    for (const compare::Run* r : group) {
      sets.push_back(run_sets(*r));
      for (const auto& [k, v] : sets.back()) {
        const auto dot = k.find('.');
        if (dot == std::string::npos) continue;
        const std::string section = k.substr(0, dot);
        if ((section == "stop" || section == "data") && k.find('.', dot + 1) == std::string::npos)
          keys[section].insert(k.substr(dot + 1));
      }
    }
    for (const auto& [section, names] : keys)
      for (const auto& name : names) {
        if (section == "data" && (name == "plugin" || name == "params" || name == "validation")) continue;
        const json want = expected.contains(section) && expected[section].is_object() && expected[section].contains(name)
                              ? expected[section][name]
                              : json(nullptr);
        std::set<std::string> differing;
        for (const compare::Run* r : group) {
          const json have = recorded(*r, section, name);
          if (have.is_null()) continue;
          // data: sizes and switches (numbers, booleans), not paths or names
          if (section == "data" && !(have.is_number() || have.is_boolean())) continue;
          if (!same(have, want)) differing.insert(shown(have));
        }
        add(section + "." + name, differing, want);
      }
    // sweep lists: the run's override, else the list of the file as written
    auto sweep_of = [](const json& doc, const std::string& key) {
      return doc.contains("sweep") && doc["sweep"].is_object() && doc["sweep"].contains(key) ? doc["sweep"][key]
                                                                                           : json(nullptr);
    };
    std::set<std::string> sweep_keys;
    for (const json* doc : {&expected, &as_written})
      if (doc->contains("sweep") && (*doc)["sweep"].is_object())
        for (auto& [k, v] : (*doc)["sweep"].items()) sweep_keys.insert(k);
    for (const auto& s : sets)
      for (const auto& [k, v] : s)
        if (k.rfind("sweep.", 0) == 0) sweep_keys.insert(k.substr(6));
    for (const auto& key : sweep_keys) {
      const json want = sweep_of(expected, key);
      std::set<std::string> differing;
      for (const auto& s : sets) {
        auto it = s.find("sweep." + key);
        const json have = it != s.end() ? it->second : sweep_of(as_written, key);
        if (!same(have, want)) differing.insert(have.is_null() ? "none" : shown(have));
      }
      add("sweep." + key, differing, want);
    }
  }
  return out;
}

std::string scale_note(const Outcome& o) {
  return o.scale.empty() ? "" : fmt::format(" (not at the claim's scale: {})", fmt::join(o.scale, ", "));
}

std::string verdict_text(const Outcome& o) {
  return (o.claim && o.claim->kind == "external" ? "measured elsewhere" : to_string(o.verdict)) + scale_note(o);
}

}  // namespace dualgap::check
