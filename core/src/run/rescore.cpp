// dualgap evaluate: re-scores finished runs from their saved iterates, without any solver.
//
// For each run.json under the given folders that saved iterates (record.iterates: final | all),
// the run's problem is rebuilt from its recorded config (prepare_run), with --data overrides
// applied to the dataset plugin's parameters (e.g. --data test=other.txt scores the same models
// on another test file), and every saved iterate is scored by the core's objective. The scores
// are written into the curve as new columns NAME@TAG (null at rows without a saved iterate), the
// run's "evaluations" list records what was done, and run.json is replaced atomically.
//
// A results folder is shared and may change under the command, so: the folder's lock is held
// (no `run --force` rewrites the run meanwhile) and run.json is read under it; an iterate whose
// size differs from its header is refused (iterates.cpp); and the data files the run names must
// still have the content hashes the run recorded (data_hashes), unless --allow-changed-data,
// which the evaluation entry then records with the hashes.
#include "run/rescore.hpp"
#include "base/json_text.hpp"
#include "data/options.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "run/run_files.hpp"
#include "dualgap/objective.hpp"
#include "run/iterates.hpp"
#include "run/lock.hpp"
#include "run/runner.hpp"
#include "plugins/loader.hpp"
#include "run/prepare.hpp"
#include "experiment/schema.hpp"
#include "base/util.hpp"

namespace fs = std::filesystem;

namespace dualgap {
namespace {

std::string default_tag(const std::vector<std::pair<std::string, std::string>>& data) {
  if (data.empty()) return "rescored";
  std::string tag;
  for (auto& [k, v] : data) tag += (tag.empty() ? "" : ",") + k + "=" + fs::path(v).filename().string();
  return tag;
}

struct Outcome {
  std::size_t rows = 0;
  double max_rel_diff = 0;  ///< against the recorded primal / test_error (same data only)
};

/// The run's data changed since it ran (exit 2): re-scoring would mix two data sets.
struct DataChanged : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A fault of the command's own options found at a run (a --data key its dataset plugin lacks):
/// exit 2 as any option error. Every other error while a run is re-scored, configuration errors
/// of the run's recorded config included (a parameter or expression a hand-edited run.json
/// breaks), is that run's failure: named with its run.json, the other runs go on (exit 1).
struct OptionError : ConfigError {
  using ConfigError::ConfigError;
};

/// The data files of the run whose content hash now differs from the one run.json recorded
/// (keys overridden by --data are not compared: they are meant to differ). Each entry: key,
/// path, recorded, now (null: none recorded / no such file now).
json changed_data(const json& run, const json& data_now, const std::vector<std::pair<std::string, std::string>>& data,
                  const PluginRegistry& reg) {
  auto overridden = [&](const std::string& key) {
    for (const auto& [k, v] : data)
      if (key == "params." + k || key.rfind("params." + k + ".", 0) == 0) return true;
    return false;
  };
  json changes = json::array();
  const json now = data_hashes(data_now, reg);
  const json recorded = run.contains("data_hashes") ? run["data_hashes"] : json(nullptr);
  if (!recorded.is_object()) {
    // a run.json that records no hashes (an older dualgap, or edited): nothing can be compared
    for (const auto& [key, h] : now.items())
      if (!overridden(key))
        changes.push_back({{"key", key}, {"path", h.value("path", "")}, {"recorded", nullptr}, {"now", h.value("xxh3", "")}});
    return changes;
  }
  for (const auto& [key, rec] : recorded.items()) {
    if (overridden(key)) continue;
    const std::string was = rec.is_object() ? rec.value("xxh3", std::string()) : std::string();
    std::string path = rec.is_object() ? rec.value("path", key) : key;
    std::string is;
    if (now.contains(key)) {
      is = now[key].value("xxh3", std::string());
      path = now[key].value("path", path);
    }
    if (was.empty() || is != was)
      changes.push_back({{"key", key}, {"path", path}, {"recorded", was.empty() ? json(nullptr) : json(was)},
                         {"now", is.empty() ? json(nullptr) : json(is)}});
  }
  return changes;
}

std::string describe_changes(const json& changes) {
  std::string out;
  for (const auto& c : changes)
    out += fmt::format("\n  {} (data.{}): content hash now {}, recorded by the run {}", c["path"].get<std::string>(),
                       c["key"].get<std::string>(), c["now"].is_null() ? "(none: no such file or folder, or too large to hash)" : c["now"].get<std::string>(),
                       c["recorded"].is_null() ? "(none: run.json records no data hashes)" : c["recorded"].get<std::string>());
  return out;
}

Outcome evaluate_run(const fs::path& file, const std::vector<std::pair<std::string, std::string>>& data,
                     const std::string& tag, bool allow_changed_data, const PluginRegistry& reg) {
  // A damaged run.json fails here, before anything is computed or written (run_files.hpp). It is
  // read under the folder's lock (rescore_runs), so no run rewrites it meanwhile.
  RunFile checked = read_run_file(file.string(), CurveMode::document);
  const json& saved = checked.doc.value("iterates", json(nullptr));
  if (!saved.is_object())
    throw std::runtime_error("no saved iterates (run with record: {iterates: final} or all)");
  // Nothing to re-score is a failure of this run, not an evaluation: run.json stays as it is.
  if (saved["saved"].empty()) throw std::runtime_error("iterates.saved is empty: no iterate to re-score");
  check_run_config(checked);
  json run = std::move(checked.doc);
  json cfg = run.at("config");
  // The dataset plugin first: its path parameters are the data whose hashes are compared, and an
  // unknown plugin fails here, before any file the run names is read.
  const auto& dp = reg.get(Kind::dataset, cfg["data"]["plugin"]);
  for (auto& [k, v] : data) {
    bool known = false;
    for (auto& spec : data_schema(dp.description->params)) known = known || spec.name == k;
    if (!known)
      throw OptionError(fmt::format("--data {}=...: '{}' is not a parameter of dataset plugin '{}'", k, k,
                                    cfg["data"]["plugin"].get<std::string>()));
    cfg["data"]["params"][k] = v;
  }
  const json changes = changed_data(run, cfg["data"], data, reg);
  if (!changes.empty() && !allow_changed_data)
    throw DataChanged(fmt::format("the data changed since the run, re-scoring would mix two data sets:{}\n"
                                  "(--allow-changed-data re-scores anyway and records this in the evaluation)",
                                  describe_changes(changes)));
  OracleCounters counters;
  PreparedRun prepared;
  prepare_run(cfg, reg, (file.parent_path().parent_path() / ".cache").string(), &counters, prepared);
  ScoreOptions options;
  options.train_error = cfg["record"].value("train_error", true);
  options.threads = scoring_threads(prepared.solver_params, 1);  // one evaluation at a time
  options.make_oracle = prepared.make_oracle;
  auto objective = make_objective(prepared.problem, *prepared.solver, options);

  json& curve = run["curve"];
  const std::size_t rows = checked.rows;
  std::map<std::string, json> columns;
  auto column = [&](const std::string& name) -> json& {
    auto& c = columns[name + "@" + tag];
    if (c.is_null()) c = json(std::vector<json>(rows, nullptr));
    return c;
  };
  Outcome out;
  for (const json& entry : saved["saved"]) {
    const std::size_t row = entry.at("row").get<std::size_t>();
    if (row >= rows) throw std::runtime_error(fmt::format("saved iterate of row {} beyond the curve's {} rows", row, rows));
    const OwnedIterate it = load_iterate(file.parent_path().string(), entry, saved.at("model").get<std::string>());
    Scores s;
    score_checkpoint(*objective, &counters, [&](Iterate& view) { view = it.view(); }, s);
    auto put = [&](const char* name, const std::optional<double>& v) {
      if (v && std::isfinite(*v)) column(name)[row] = *v;
    };
    put("primal", s.primal);
    put("dual", s.dual);
    if (s.primal && s.dual) put("gap", *s.primal - *s.dual);
    put("train_error", s.train_error);
    put("test_error", s.test_error);
    for (auto& [k, v] : s.extra) column(k)[row] = std::isfinite(v) ? json(v) : json(nullptr);
    if (data.empty()) {  // same data: how far the recorded values are from the recomputed ones
      for (const char* name : {"primal", "test_error"}) {
        const json& rec = curve.value(name, json(nullptr));
        const std::optional<double>& now = std::string(name) == "primal" ? s.primal : s.test_error;
        if (rec.is_array() && row < rec.size() && rec[row].is_number() && now) {
          const double a = rec[row].get<double>();
          out.max_rel_diff = std::max(out.max_rel_diff, std::abs(a - *now) / std::max(1e-300, std::abs(a)));
        }
      }
    }
    ++out.rows;
  }
  for (auto& [name, values] : columns) curve[name] = values;
  json record = {{"tag", tag}, {"data", json::object()}, {"rows", out.rows}, {"at", iso_time_now()},
                 {"version", kVersion}};
  for (auto& [k, v] : data) record["data"][k] = v;
  if (allow_changed_data) {
    record["allow_changed_data"] = true;
    record["changed_data"] = changes;
  }
  if (!run.contains("evaluations") || !run["evaluations"].is_array()) run["evaluations"] = json::array();
  run["evaluations"].push_back(record);
  write_file_atomic(file.string(), json_text(run, 1));
  return out;
}

}  // namespace

RescoreCounts rescore_runs(const RescoreOptions& opt, std::ostream& out) {
  const std::string tag = opt.tag.empty() ? default_tag(opt.data) : opt.tag;
  if (tag.empty() || tag.find_first_of("@/") != std::string::npos)
    throw ConfigError("--tag '" + tag + "': must be non-empty, without '@' or '/'");
  const auto files = find_run_files(opt.results);
  if (files.empty()) throw std::runtime_error("no run.json found under the given folders");
  auto& reg = registry();
  RescoreCounts counts;
  // The lock of each experiment folder (<out>/<experiment>/.lock, the one `dualgap run` takes),
  // held from the first of its runs to the end: no run rewrites a run.json while it is re-scored.
  std::map<fs::path, std::unique_ptr<FolderLock>> locks;
  for (auto& f : files) {
    // A packed record (run.json.gz, `results pack`) is a reference copy without iterates:
    // re-scoring writes columns into the record, which only a run's own run.json takes. Refused
    // by its name, before its folder is locked or the record read.
    if (f.filename() == kRunFileGz) {
      std::cerr << f.string() << ": a packed run record (run.json.gz) is not re-scored in place: re-score the run's run.json\n";
      ++counts.failed;
      continue;
    }
    const fs::path folder = fs::absolute(f).parent_path().parent_path();
    if (!locks.count(folder))
      locks[folder] = std::make_unique<FolderLock>(folder.string(), FolderLock::Mode::exclusive, opt.wait_lock,
                                                   "dualgap evaluate");
    try {
      const Outcome o = evaluate_run(f, opt.data, tag, opt.allow_changed_data, reg);
      out << fmt::format("{}: {} iterate(s) re-scored -> columns *@{}", f.parent_path().string(), o.rows, tag);
      if (opt.data.empty()) out << fmt::format(" (max relative difference to the recorded values {:.3g})", o.max_rel_diff);
      out << "\n";
      ++counts.done;
    } catch (const OptionError&) {
      throw;
    } catch (const DataChanged& e) {
      std::cerr << f.string() << ": " << e.what() << "\n";
      ++counts.refused;
    } catch (const RunFileError& e) {  // names the file itself
      std::cerr << e.what() << "\n";
      ++counts.failed;
    } catch (const std::exception& e) {
      std::cerr << f.string() << ": " << e.what() << "\n";
      ++counts.failed;
    }
  }
  return counts;
}

}  // namespace dualgap
