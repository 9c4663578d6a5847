// `dualgap check RESULTS... [--claims FILE]... [--format text|markdown|json] [--scale full|ci] [--strict]`,
// and the claims files that name the experiments of some runs (also the report's verdicts).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "check/claims.hpp"
#include "cli/entries.hpp"
#include "experiment/schema.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dualgap::check {

namespace {

/// Experiments a claims file reads (its default and every side's own).
std::set<std::string> experiments_of(const ClaimsFile& f) {
  std::set<std::string> out;
  if (!f.experiment.empty()) out.insert(f.experiment);
  for (const auto& c : f.claims)
    for (const auto* sides : {&c.a, &c.b})
      for (const auto& s : *sides)
        if (!s.experiment.empty()) out.insert(s.experiment);
  return out;
}

/// claims.yaml files of the experiments folder: ./experiments, else the source tree's.
std::vector<fs::path> default_claims_files() {
  std::vector<fs::path> roots = {"experiments"};
#ifdef DUALGAP_SOURCE_DIR
  roots.push_back(fs::path(DUALGAP_SOURCE_DIR) / "experiments");
#endif
  for (const auto& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(root, ec))
      if (fs::exists(entry.path() / "claims.yaml", ec)) files.push_back(entry.path() / "claims.yaml");
    std::sort(files.begin(), files.end());
    if (!files.empty()) return files;
  }
  return {};
}

}  // namespace

std::vector<ClaimsFile> claims_for_runs(const compare::RunSet& set) {
  std::set<std::string> present;
  for (const auto& r : set.runs) present.insert(r.experiment);
  std::vector<ClaimsFile> files;
  for (const auto& p : default_claims_files()) {
    ClaimsFile f = read_claims(p.string());
    const auto named = experiments_of(f);
    if (std::any_of(named.begin(), named.end(), [&](const std::string& e) { return present.count(e) > 0; }))
      files.push_back(std::move(f));
  }
  return files;
}

json verdicts_json(const compare::RunSet& set, const std::vector<ClaimsFile>& files, bool ci_scale) {
  json all = json::array();
  for (const auto& f : files) {
    std::vector<Outcome> outcomes;
    for (const auto& c : f.claims) outcomes.push_back(evaluate(set, f, c, ci_scale));
    all.push_back(outcomes_json(f, outcomes));
  }
  return all;
}

}  // namespace dualgap::check

namespace dualgap::cli {

namespace {

/// The claims files that name the experiments of the runs (none: bad usage, --claims is needed).
std::vector<check::ClaimsFile> default_claims(const compare::RunSet& set) {
  auto files = as_configuration([&] { return check::claims_for_runs(set); });
  if (files.empty()) {
    std::set<std::string> present;
    for (const auto& r : set.runs) present.insert(r.experiment);
    throw UsageError(fmt::format("no experiments/*/claims.yaml names the experiments of these runs ({}); give --claims FILE",
                                 fmt::join(present, ", ")));
  }
  return files;
}

}  // namespace

void check_options(po::options_description& d) {
  d.add_options()("claims", po::value<std::vector<std::string>>()->composing(),
                  "claims file (repeatable); default: every experiments/*/claims.yaml that names an experiment of RESULTS")(
      "format", choice({"text", "markdown", "json"}), "text, markdown (the README table) or json")(
      "scale", choice({"full", "ci"}), "full, or ci: claims marked 'scale: full' are reported as such and not evaluated")(
      "strict", "a claim that cannot be measured counts as a failure (exit 1); external ones excepted");
}

int check_main(const Args& a) {
  const auto inputs = a.list("results"), claims_paths = a.list("claims");
  const std::string format = a.text("format");
  const bool ci = a.text("scale") == "ci";
  // The named claims files first: a bad one is reported before any run is read. A claims file
  // is configuration: one that cannot be read is exit 2, at its location.
  std::vector<check::ClaimsFile> files;
  for (const auto& p : claims_paths) files.push_back(as_configuration([&] { return check::read_claims(p); }));
  const compare::RunSet set = compare::load_runs(inputs);
  for (const auto& w : set.warnings) std::cerr << "warning: " << w << "\n";
  if (set.runs.empty()) throw std::runtime_error(fmt::format("no run.json found under {}", fmt::join(inputs, ", ")));
  if (claims_paths.empty()) files = default_claims(set);
  check::Tally tally;
  json all = json::array();
  for (std::size_t i = 0; i < files.size(); ++i) {
    const check::ClaimsFile& f = files[i];
    std::vector<check::Outcome> outcomes;
    for (const auto& c : f.claims) outcomes.push_back(check::evaluate(set, f, c, ci));
    for (const auto& o : outcomes) tally.add(o);
    if (format == "json") {
      all.push_back(check::outcomes_json(f, outcomes));
    } else if (format == "markdown") {
      const std::string folder = fs::path(f.path).parent_path().filename().string();
      std::cout << check::format_outcomes(f, outcomes, format, files.size() > 1 ? "`" + folder + "` " : "", i == 0);
    } else {
      std::cout << check::format_outcomes(f, outcomes, format) << "\n";
    }
  }
  if (format == "json") std::cout << json_text(json{{"schema", "dualgap.check/1"}, {"files", all}}, 2) << "\n";
  std::cerr << tally.line();
  return tally.fails > 0 || (a.has("strict") && tally.unmeasured > 0) ? 1 : 0;
}

}  // namespace dualgap::cli
