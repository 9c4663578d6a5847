// dualgap command line: run, validate, plugins, describe, compare, check, data, evaluate, new-plugin.
// Exit status: 0 success, 1 a run or the tool failed, 2 bad usage or invalid configuration.
#include <fnmatch.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "check/claims.hpp"
#include "compare/compare.hpp"
#include "evaluate.hpp"
#include "datafetch/registry.hpp"
#include "config.hpp"
#include "data_check.hpp"
#include "loader.hpp"
#include "runner.hpp"
#include "scaffold/new_plugin.hpp"
#include "util.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace dualgap;

namespace {

const char* kUsage = R"(dualgap — run, record and compare solvers for multi-class and structured-output learning

usage: dualgap <command> [options]

commands:
  run EXPERIMENT.yaml       run every solver of an experiment, write results/<name>/<run>/run.json
  validate EXPERIMENT.yaml  check the experiment and print the expanded runs; runs nothing
  plugins                   list the plugins found on the plugin path
  describe PLUGIN           print a plugin's summary and parameter schema
  compare RESULTS...        tables, HTML report and figures from recorded runs
  evaluate RESULTS...       re-score finished runs from their saved iterates (e.g. on another test file)
  check RESULTS...          evaluate the papers' claims (experiments/*/claims.yaml) on recorded runs
  data list|fetch NAME...   the real data sets, their sources and checksums; download and verify them
  new-plugin KIND NAME      write a working plugin skeleton (dataset, features, oracle, solver)

'dualgap <command> --help' describes each command. Plugin path: the build tree, the install
tree and the folders of DUALGAP_PLUGIN_PATH (colon-separated).
)";

std::vector<std::string> rest(int argc, char** argv, int from) {
  std::vector<std::string> v;
  for (int i = from; i < argc; ++i) v.emplace_back(argv[i]);
  return v;
}

void print_problems(const PluginRegistry& reg) {
  for (auto& p : reg.problems()) std::cerr << "warning: " << p << "\n";
  for (auto& w : reg.warnings()) std::cerr << "warning: " << w << "\n";
}

int cmd_plugins(const std::vector<std::string>& args) {
  po::options_description desc("dualgap plugins [--kind KIND] [--json]");
  desc.add_options()("help,h", "this help")("kind", po::value<std::string>(), "dataset, features, oracle or solver")(
      "json", "machine-readable output")("paths", "also print the folders searched");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc << "\nLists every plugin found on the plugin path, and files that failed to load.\n";
    return 0;
  }
  std::optional<Kind> only;
  if (vm.count("kind")) {
    Kind k;
    if (!parse_kind(vm["kind"].as<std::string>(), k)) {
      std::cerr << "dualgap plugins: unknown kind '" << vm["kind"].as<std::string>()
                << "' (dataset, features, oracle, solver)\n";
      return 2;
    }
    only = k;
  }
  auto& reg = registry();
  if (vm.count("json")) {
    json out = json::array();
    for (auto& p : reg.plugins()) {
      if (only && p.kind() != *only) continue;
      out.push_back({{"name", p.name()}, {"kind", to_string(p.kind())}, {"version", p.description->version},
                     {"summary", p.description->summary}, {"path", p.path}});
    }
    std::cout << out.dump(2) << "\n";
    print_problems(reg);
    return 0;
  }
  for (Kind k : {Kind::dataset, Kind::features, Kind::oracle, Kind::solver}) {
    if (only && k != *only) continue;
    std::cout << to_string(k) << ":\n";
    for (auto& p : reg.plugins())
      if (p.kind() == k)
        std::cout << fmt::format("  {:<22} {:<7} {}\n", p.name(), p.description->version, p.description->summary);
  }
  if (vm.count("paths"))
    for (auto& d : PluginRegistry::default_search_path()) std::cout << "searched: " << d << "\n";
  print_problems(reg);
  return 0;
}

int cmd_describe(const std::vector<std::string>& args) {
  po::options_description desc("dualgap describe PLUGIN [--kind KIND]");
  desc.add_options()("help,h", "this help")("kind", po::value<std::string>(), "disambiguate by kind")(
      "plugin", po::value<std::string>(), "plugin name");
  po::positional_options_description pos;
  pos.add("plugin", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") || !vm.count("plugin")) {
    std::cout << desc << "\nPrints the summary and the parameter schema (name, type, default, range, doc).\n";
    return vm.count("help") ? 0 : 2;
  }
  auto& reg = registry();
  auto found = reg.find_any(vm["plugin"].as<std::string>());
  if (vm.count("kind")) {
    Kind k;
    if (!parse_kind(vm["kind"].as<std::string>(), k)) return 2;
    std::erase_if(found, [&](auto* p) { return p->kind() != k; });
  }
  if (found.empty()) {
    std::cerr << "dualgap describe: no plugin named '" << vm["plugin"].as<std::string>()
              << "' (see 'dualgap plugins')\n";
    return 2;
  }
  for (auto* p : found) {
    const auto& d = *p->description;
    std::cout << fmt::format("{} ({} plugin, version {})\n  {}\n  file: {}\n\nparameters:\n", d.name, to_string(d.kind),
                             d.version, d.summary, p->path);
    if (d.params.empty()) std::cout << "  (none)\n";
    for (auto& s : d.params) {
      std::string range;
      if (s.min || s.max)
        range = fmt::format(" range [{}, {}]", s.min ? fmt::format("{}", *s.min) : "-inf",
                            s.max ? fmt::format("{}", *s.max) : "inf");
      if (!s.choices.empty()) range = fmt::format(" one of {{{}}}", fmt::join(s.choices, ", "));
      std::string def = s.default_value.is_null() ? (s.optional ? "optional" : "required") : "default " + s.default_value.dump();
      std::cout << fmt::format("  {:<18} {:<14} {}{}\n      {}\n", s.name, to_string(s.type), def, range, s.doc);
    }
  }
  return 0;
}

struct RunArgs {
  std::string file;
  std::vector<std::string> sets;
  std::vector<std::string> only;
  int jobs = 1;
  std::string out = "results";
  bool force = false;
  bool no_report = false;
  bool no_data = false;
  double deadline = 0;
};

int parse_run_args(const std::vector<std::string>& args, RunArgs& ra, bool validate_only) {
  po::options_description desc(validate_only ? "dualgap validate EXPERIMENT.yaml [--set key=value]..."
                                             : "dualgap run EXPERIMENT.yaml [options]");
  desc.add_options()("help,h", "this help")("set", po::value<std::vector<std::string>>(&ra.sets)->composing(),
                                            "override a value by dotted key, e.g. stop.max_passes=10 or "
                                            "solvers.MP-BCFW.params.M=5 (repeatable)")(
      "only", po::value<std::vector<std::string>>(&ra.only)->composing(),
      "keep only the runs whose id matches this glob, e.g. 'MP-BCFW__r3' or '*__r[0-4]' (repeatable; "
      "seeds stay those of the full experiment)");
  if (validate_only) desc.add_options()("no-data", "do not load the data sets (by default each is loaded once)");
  if (!validate_only)
    desc.add_options()("jobs,j", po::value<int>(&ra.jobs)->default_value(1), "runs at once (child processes)")(
        "out,o", po::value<std::string>(&ra.out)->default_value("results"), "results folder")(
        "force", "rerun runs that finished before with the same config hash")(
        "deadline", po::value<double>(&ra.deadline), "hard wall-clock limit per run in seconds (watchdog)")(
        "no-report", "do not write the HTML report");
  desc.add_options()("experiment", po::value<std::string>(&ra.file), "experiment file");
  po::positional_options_description pos;
  pos.add("experiment", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc
              << "\nThe experiment YAML has: name, data, features, oracle, problem, solvers, stop, record, repeats,\n"
                 "seed, sweep (see README.md). Exit status: 0 ok, 1 a run failed, 2 invalid configuration.\n";
    return 0;
  }
  if (ra.file.empty()) {
    std::cerr << desc << "\nerror: an experiment file is required\n";
    return 2;
  }
  ra.force = vm.count("force") > 0;
  ra.no_report = vm.count("no-report") > 0;
  ra.no_data = vm.count("no-data") > 0;
  if (!validate_only && (ra.jobs < 1 || ra.jobs > 4096))
    throw ConfigError(fmt::format("--jobs {}: expected the number of runs at once, 1 to 4096", ra.jobs));
  if (vm.count("deadline") && !(ra.deadline > 0 && std::isfinite(ra.deadline)))
    throw ConfigError(fmt::format("--deadline {}: expected a limit in seconds greater than 0", ra.deadline));
  return -1;
}

/// Keeps the runs whose id matches one of the globs (all runs when there are none). A glob that
/// matches nothing is an error naming the run ids, so a typo cannot silently run nothing.
std::vector<RunSpec> select_runs(const std::vector<RunSpec>& runs, const std::vector<std::string>& globs) {
  if (globs.empty()) return runs;
  std::vector<RunSpec> kept;
  std::vector<bool> used(globs.size(), false);
  for (const auto& r : runs) {
    bool keep = false;
    for (std::size_t g = 0; g < globs.size(); ++g)
      if (fnmatch(globs[g].c_str(), r.run_id.c_str(), 0) == 0) keep = used[g] = true;
    if (keep) kept.push_back(r);
  }
  for (std::size_t g = 0; g < globs.size(); ++g)
    if (!used[g]) {
      std::vector<std::string> ids;
      for (const auto& r : runs) ids.push_back(r.run_id);
      std::sort(ids.begin(), ids.end());
      throw ConfigError(fmt::format("--only '{}' matches no run; the run ids are: {}", globs[g], fmt::join(ids, ", ")));
    }
  return kept;
}

int cmd_validate(const std::vector<std::string>& args) {
  RunArgs ra;
  if (int rc = parse_run_args(args, ra, true); rc >= 0) return rc;
  auto& reg = registry();
  print_problems(reg);
  auto runs = select_runs(expand_experiment(ra.file, ExpandOptions{ra.sets}, reg), ra.only);
  std::cout << fmt::format("{}: valid; {} runs\n", ra.file, runs.size());
  for (auto& r : runs) {
    std::string sweep = r.sweep_point.empty() ? "" : " " + r.sweep_point.dump();
    std::cout << fmt::format("  {:<44} solver {} ({}) repeat {}{} seeds {}\n", r.run_id, r.solver_name,
                             r.config["solver"]["plugin"].get<std::string>(), r.repeat, sweep,
                             r.config["seeds"].dump());
  }
  if (!ra.no_data) check_run_data(runs, reg, std::cout);
  return 0;
}

int cmd_run(const std::vector<std::string>& args) {
  RunArgs ra;
  if (int rc = parse_run_args(args, ra, false); rc >= 0) return rc;
  auto& reg = registry();
  print_problems(reg);
  auto runs = select_runs(expand_experiment(ra.file, ExpandOptions{ra.sets}, reg), ra.only);
  RunnerOptions opts;
  opts.out_dir = ra.out;
  opts.jobs = ra.jobs;
  opts.force = ra.force;
  opts.deadline_s = ra.deadline;
  opts.progress_tty = isatty(STDOUT_FILENO);
  std::cout << fmt::format("{}: {} runs, {} at once, results in {}\n", ra.file, runs.size(), opts.jobs,
                           (fs::path(ra.out) / runs.front().experiment).string());
  RunnerSummary s = run_all(runs, opts, reg);
  const fs::path exp_dir = fs::path(ra.out) / runs.front().experiment;
  std::cout << fmt::format("{} runs: {} done, {} budget, {} skipped, {} diverged, {} timeout, {} failed\n", s.total, s.done,
                           s.budget, s.skipped, s.diverged, s.timeout, s.failed);
  std::cout << "results: " << exp_dir.string() << "\n";
  if (!ra.no_report) {
    try {
      auto html = compare::write_report({exp_dir.string()}, (exp_dir / "report.html").string());
      std::cout << "report: " << html << "\n";
    } catch (const std::exception& e) {
      std::cerr << "dualgap run: no report: " << e.what() << "\n";
    }
  }
  return s.any_failure() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string cmd = argv[1];
  const auto args = rest(argc, argv, 2);
  try {
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (cmd == "--version") {
      std::cout << "dualgap " << kVersion << " (plugin API " << kApiVersion << ")\n";
      return 0;
    }
    if (cmd == "run") return cmd_run(args);
    if (cmd == "validate") return cmd_validate(args);
    if (cmd == "plugins") return cmd_plugins(args);
    if (cmd == "describe") return cmd_describe(args);
    if (cmd == "compare") return compare::compare_main(args);
    if (cmd == "evaluate") return evaluate_main(args);
    if (cmd == "check") return check::check_main(args);
    if (cmd == "data") return datafetch::data_main(args);
    if (cmd == "new-plugin") return scaffold::new_plugin_main(args);
    std::cerr << "dualgap: unknown command '" << cmd << "'\n\n" << kUsage;
    return 2;
  } catch (const ConfigError& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";  // a Latin-1 byte of the input as \xNN
    return 2;
  } catch (const po::error& e) {
    std::cerr << "dualgap " << cmd << ": " << e.what() << " (see 'dualgap " << cmd << " --help')\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
