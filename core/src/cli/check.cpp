// `dualgap check RESULTS... [--claims FILE]... [--format text|markdown|json] [--scale full|ci] [--strict]`
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "check/claims.hpp"

namespace po = boost::program_options;
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

int check_main(const std::vector<std::string>& args) {
  std::vector<std::string> inputs, claims_paths;
  std::string format = "text", scale = "full";
  po::options_description desc("dualgap check RESULTS... [options]");
  desc.add_options()("help,h", "this help")(
      "claims", po::value<std::vector<std::string>>(&claims_paths)->composing(),
      "claims file (repeatable); default: every experiments/*/claims.yaml that names an experiment of RESULTS")(
      "format", po::value<std::string>(&format)->default_value("text"), "text, markdown (the README table) or json")(
      "scale", po::value<std::string>(&scale)->default_value("full"),
      "full, or ci: claims marked 'scale: full' are reported as such and not evaluated")(
      "strict", "a claim that cannot be measured counts as a failure (exit 1); external ones excepted")(
      "results", po::value<std::vector<std::string>>(&inputs), "run.json files or result folders");
  po::positional_options_description pos;
  pos.add("results", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc
              << "\nEvaluates a paper's claims (claims.yaml, docs/check.md) on recorded runs: per claim holds, fails\n"
                 "or not measurable, with the measured figures beside the paper's. Exit status: 0 when every\n"
                 "measurable claim holds, 1 when one fails (or, with --strict, cannot be measured), 2 bad usage.\n";
    return 0;
  }
  if (inputs.empty()) {
    std::cerr << desc << "\nerror: give at least one result folder or run.json\n";
    return 2;
  }
  if (format != "text" && format != "markdown" && format != "json") {
    std::cerr << "dualgap check: --format must be text, markdown or json, not '" << format << "'\n";
    return 2;
  }
  if (scale != "full" && scale != "ci") {
    std::cerr << "dualgap check: --scale must be full or ci, not '" << scale << "'\n";
    return 2;
  }
  const bool strict = vm.count("strict") > 0;

  std::vector<ClaimsFile> files;
  try {
    for (const auto& p : claims_paths) files.push_back(read_claims(p));
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  const compare::RunSet set = compare::load_runs(inputs);
  for (const auto& w : set.warnings) std::cerr << "warning: " << w << "\n";
  if (set.runs.empty()) {
    std::cerr << "dualgap check: no run.json found under " << fmt::format("{}", fmt::join(inputs, ", ")) << "\n";
    return 1;
  }
  if (claims_paths.empty()) {
    try {
      files = claims_for_runs(set);
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    }
    if (files.empty()) {
      std::set<std::string> present;
      for (const auto& r : set.runs) present.insert(r.experiment);
      std::cerr << "dualgap check: no experiments/*/claims.yaml names the experiments of these runs ("
                << fmt::format("{}", fmt::join(present, ", ")) << "); give --claims FILE\n";
      return 2;
    }
  }

  int holds = 0, fails = 0, unmeasured = 0, skipped = 0, external = 0;
  json all = json::array();
  for (std::size_t i = 0; i < files.size(); ++i) {
    const ClaimsFile& f = files[i];
    std::vector<Outcome> outcomes;
    for (const auto& c : f.claims) outcomes.push_back(evaluate(set, f, c, scale == "ci"));
    for (const auto& o : outcomes) {
      holds += o.verdict == Verdict::holds;
      fails += o.verdict == Verdict::fails;
      // An external claim is measured by another tool (a peer's script): never a failure here.
      external += o.claim->kind == "external";
      unmeasured += o.verdict == Verdict::not_measurable && o.claim->kind != "external";
      skipped += o.verdict == Verdict::skipped;
    }
    if (format == "json") {
      all.push_back(outcomes_json(f, outcomes));
    } else if (format == "markdown") {
      const std::string folder = fs::path(f.path).parent_path().filename().string();
      std::cout << format_outcomes(f, outcomes, format, files.size() > 1 ? "`" + folder + "` " : "", i == 0);
    } else {
      std::cout << format_outcomes(f, outcomes, format) << "\n";
    }
  }
  if (format == "json") std::cout << json{{"schema", "dualgap.check/1"}, {"files", all}}.dump(2) << "\n";
  std::cerr << fmt::format("{} claims: {} hold, {} fail, {} not measurable{}{}\n",
                           holds + fails + unmeasured + skipped + external, holds, fails, unmeasured,
                           skipped ? fmt::format(", {} full scale only", skipped) : "",
                           external ? fmt::format(", {} measured elsewhere", external) : "");
  return fails > 0 || (strict && unmeasured > 0) ? 1 : 0;
}

}  // namespace dualgap::check
