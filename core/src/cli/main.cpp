// dualgap command line: run, validate, plugins, describe, compare, check, data, evaluate, new-plugin.
// Exit status: 0 success, 1 a run or the tool failed, 2 bad usage or invalid configuration.
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <iostream>
#include <optional>
#include <set>

#include "check/claims.hpp"
#include "compare/compare.hpp"
#include "run/rescore.hpp"
#include "data/fetch/registry.hpp"
#include "experiment/config.hpp"
#include "data/options.hpp"
#include "experiment/data_check.hpp"
#include "run/slurm.hpp"
#include "run/lock.hpp"
#include "plugins/loader.hpp"
#include "run/runner.hpp"
#include "scaffold/new_plugin.hpp"
#include "experiment/selection.hpp"
#include "run/status.hpp"
#include "base/output_option.hpp"
#include "base/util.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace dualgap;

namespace {

const char* kUsage = R"(dualgap — run, record and compare solvers for multi-class and structured-output learning

usage: dualgap <command> [options]

commands:
  run EXPERIMENT.yaml       run every solver of an experiment, write results/<name>/<run>/run.json
  validate EXPERIMENT.yaml  check the experiment and print the expanded runs; runs nothing
  status RESULTS            done / failed / running / pending runs, and the Slurm jobs' states
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
  po::options_description desc("dualgap plugins [--kind KIND] [--json] [--paths]");
  desc.add_options()("help,h", "this help")("kind", po::value<std::string>(), "dataset, features, oracle or solver")(
      "json", "machine-readable output")("paths", "also print the folders searched, in order");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc
              << "\nLists every plugin found on the plugin path with its file, and the files that failed to load\n"
                 "(each is loaded in a separate process first: one that crashes or exits is named, not loaded).\n"
                 "Plugin path: the build tree, the install tree, then the folders of DUALGAP_PLUGIN_PATH\n"
                 "(colon-separated); a later folder wins when two plugins of a kind have one name.\n";
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
        std::cout << fmt::format("  {:<22} {:<7} {}\n  {:<22} {:<7} file: {}\n", p.name(), p.description->version,
                                 p.description->summary, "", "", p.path);
  }
  if (vm.count("paths"))
    for (auto& d : PluginRegistry::default_search_path()) std::cout << "searched: " << d << "\n";
  print_problems(reg);
  return 0;
}

/// What a solver needs from an oracle, or what an oracle offers, and the loaded plugins on the
/// other side (the pairing `validate` checks).
void print_interfaces(const PluginDescription& d, const PluginRegistry& reg) {
  auto shares = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
  };
  auto others = [&](Kind k, const std::function<bool(const PluginDescription&)>& keep) {
    std::vector<std::string> out;
    for (auto& p : reg.plugins())
      if (p.kind() == k && keep(*p.description)) out.push_back(p.name());
    std::sort(out.begin(), out.end());
    return out.empty() ? std::string("none loaded") : fmt::format("{}", fmt::join(out, ", "));
  };
  if (d.kind == Kind::solver) {
    if (d.accepts.empty())
      std::cout << "  needs: no oracle interface (it runs with any oracle, or none)\n";
    else
      std::cout << fmt::format("  needs: an oracle offering one of [{}]\n    oracles that do: {}\n",
                               fmt::join(d.accepts, ", "),
                               others(Kind::oracle, [&](const PluginDescription& o) { return shares(d.accepts, o.interfaces); }));
  } else if (d.kind == Kind::oracle) {
    std::cout << fmt::format("  offers: [{}]\n    solvers that accept it: {}\n", fmt::join(d.interfaces, ", "),
                             others(Kind::solver, [&](const PluginDescription& sv) { return shares(sv.accepts, d.interfaces); }));
  }
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
    std::cout << desc
              << "\nPrints the summary, the plugin's file, the oracle interfaces a solver needs or an oracle\n"
                 "offers (with the loaded plugins on the other side) and the parameter schema (name, type,\n"
                 "default, range, doc).\n";
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
    const std::string name = vm["plugin"].as<std::string>();
    std::optional<Kind> kind;
    if (Kind k; vm.count("kind") && parse_kind(vm["kind"].as<std::string>(), k)) kind = k;
    const std::string hint = unbuilt_plugin_hint(name, kind);
    std::cerr << "dualgap describe: no plugin named '" << printable(name) << "' (see 'dualgap plugins')"
              << (hint.empty() ? "" : "; " + hint) << "\n";
    print_problems(reg);
    return 2;
  }
  for (auto* p : found) {
    const auto& d = *p->description;
    std::cout << fmt::format("{} ({} plugin, version {})\n  {}\n  file: {}\n", d.name, to_string(d.kind), d.version,
                             d.summary, p->path);
    print_interfaces(d, reg);
    std::cout << "\nparameters:\n";
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
    if (d.kind == Kind::dataset) {
      std::vector<std::string> core;
      for (auto& c : data_schema(d.params))
        if (std::none_of(d.params.begin(), d.params.end(), [&](const ParamSpec& o) { return o.name == c.name; }))
          core.push_back(c.name);
      std::cout << fmt::format("\nand the core data: keys (docs/data.md): {}, validation\n", fmt::join(core, ", "));
    }
  }
  return 0;
}

struct RunArgs {
  std::string file;
  std::vector<std::string> sets;
  std::vector<std::string> only;
  std::vector<std::string> only_id;
  std::string shard;
  bool json = false;
  bool wait_lock = false;
  bool slurm_task = false;  ///< a task of a Slurm array: shares the folder's lock with its siblings
  std::string executor;
  std::vector<slurm::Override> executor_options;  ///< --partition and the like (applied last)
  std::vector<std::string> sbatch_args;
  bool wait = false;
  int jobs = 1;
  std::string out = "results";
  bool force = false;
  bool no_report = false;
  bool no_data = false;
  bool allow_large = false;
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
      "seeds stay those of the full experiment)")(
      "only-id", po::value<std::vector<std::string>>(&ra.only_id)->composing(),
      "keep only the run with exactly this id (no glob; repeatable)")(
      "shard", po::value<std::string>(&ra.shard),
      "keep the I-th of N disjoint, balanced shares of the runs, e.g. --shard 3/8 (run k goes to share k mod N)")(
      "allow-large", "expand an experiment of more than 100000 runs or sweep points (refused by default: each "
                     "expanded run is held in memory, see 'Experiment size' in README.md)");
  if (validate_only)
    desc.add_options()("json", "print the expanded runs as JSON (ids, config hashes, seeds)")(
        "no-data", "do not load the data sets (by default each is loaded once)");
  if (!validate_only)
    desc.add_options()("jobs,j", po::value<int>(&ra.jobs)->default_value(1), "runs at once (child processes)")(
        "out,o", output_path(&ra.out, "--out")->default_value("results"), "results folder")(
        "force", "rerun runs that finished before with the same config hash")(
        "deadline", po::value<double>(&ra.deadline), "hard wall-clock limit per run in seconds (watchdog)")(
        "no-report", "do not write the HTML report")(
        "wait-lock", "when another dualgap run writes into the same results folder, wait for it (default: exit 2)")(
        "executor", po::value<std::string>(&ra.executor),
        "local (default) or slurm: submit one job array (see docs/cluster.md)")(
        "partition", po::value<std::string>(), "slurm: sbatch --partition")(
        "time", po::value<std::string>(), "slurm: sbatch --time, per task (e.g. 2:00:00)")(
        "mem", po::value<std::string>(), "slurm: sbatch --mem, per task (e.g. 4G)")(
        "cpus-per-task", po::value<int>(), "slurm: sbatch --cpus-per-task; also the --jobs of each task")(
        "max-concurrent", po::value<int>(), "slurm: tasks running at once (--array=0-N%K)")(
        "runs-per-task", po::value<int>(), "slurm: runs per array task (default 1)")(
        "sbatch-arg", po::value<std::vector<std::string>>(&ra.sbatch_args)->composing(),
        "slurm: one more sbatch option in its long form, e.g. --sbatch-arg=--account=lab (repeatable)")(
        "wait", "slurm: block until the array and the report job are done; exit 0/1 as a local run");
  po::options_description hidden;
  if (!validate_only) hidden.add_options()("slurm-task", "internal: run as a task of a Slurm array");
  hidden.add_options()("experiment", po::value<std::string>(&ra.file), "experiment file");
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("experiment", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc
              << "\nThe experiment YAML has: name, data, features, oracle, problem, solvers, stop, record, repeats,\n"
                 "seed, sweep, executor (see docs/experiments.md). Exit status: 0 ok, 1 a run failed, 2 invalid configuration\n"
                 "or the results folder in use, 128+N stopped by signal N (the folder resumes).\n";
    return 0;
  }
  if (ra.file.empty()) {
    std::cerr << desc << "\nerror: an experiment file is required\n";
    return 2;
  }
  ra.force = vm.count("force") > 0;
  ra.no_report = vm.count("no-report") > 0;
  ra.no_data = vm.count("no-data") > 0;
  // A Slurm task expands the experiment its submitter expanded (and allowed).
  ra.allow_large = vm.count("allow-large") > 0 || vm.count("slurm-task") > 0;
  if (!validate_only && (ra.jobs < 1 || ra.jobs > 4096))
    throw ConfigError(fmt::format("--jobs {}: expected the number of runs at once, 1 to 4096", ra.jobs));
  if (vm.count("deadline") && !(ra.deadline > 0 && std::isfinite(ra.deadline)))
    throw ConfigError(fmt::format("--deadline {}: expected a limit in seconds greater than 0", ra.deadline));
  ra.json = vm.count("json") > 0;
  ra.wait_lock = vm.count("wait-lock") > 0;
  ra.slurm_task = vm.count("slurm-task") > 0;
  ra.wait = vm.count("wait") > 0;
  // Executor options given on the command line, applied after the file and --set; each named
  // by its option in messages.
  auto& ex = ra.executor_options;
  for (const char* k : {"partition", "time", "mem"})
    if (vm.count(k)) ex.push_back({k, vm[k].as<std::string>(), std::string("--") + k});
  for (const char* k : {"cpus-per-task", "max-concurrent", "runs-per-task"})
    if (vm.count(k)) {
      std::string key = k;
      std::replace(key.begin(), key.end(), '-', '_');
      ex.push_back({key, vm[k].as<int>(), std::string("--") + k});
    }
  if (!ra.sbatch_args.empty()) ex.push_back({"sbatch_args", ra.sbatch_args, "--sbatch-arg"});
  if (!ra.executor.empty()) ex.push_back({"name", ra.executor, "--executor"});
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

/// --only globs, then --only-id exact ids (either keeps a run), then --shard of what is left.
std::vector<RunSpec> selected_runs(const RunArgs& ra, const std::vector<std::string>& sets, const PluginRegistry& reg) {
  auto all = expand_experiment(ra.file, ExpandOptions{sets, ra.allow_large}, reg);
  std::vector<RunSpec> runs = all;
  if (!ra.only.empty() || !ra.only_id.empty()) {
    auto by_glob = ra.only.empty() ? std::vector<RunSpec>{} : select_runs(all, ra.only);
    auto by_id = select_ids(all, ra.only_id);
    std::set<std::string> keep;
    for (auto& r : by_glob) keep.insert(r.run_id);
    if (!ra.only_id.empty())
      for (auto& r : by_id) keep.insert(r.run_id);
    runs.clear();
    for (auto& r : all)
      if (keep.count(r.run_id)) runs.push_back(r);
  }
  if (!ra.shard.empty()) runs = select_shard(runs, parse_shard(ra.shard));
  return runs;
}

int cmd_validate(const std::vector<std::string>& args) {
  RunArgs ra;
  if (int rc = parse_run_args(args, ra, true); rc >= 0) return rc;
  auto& reg = registry();
  print_problems(reg);
  std::vector<std::string> sets = ra.sets;
  slurm::refuse_unused(slurm::read_options(ra.file, sets));  // validates the executor section too
  auto runs = selected_runs(ra, sets, reg);
  if (ra.json) {
    json out = json::array();
    for (auto& r : runs)
      out.push_back({{"experiment", r.experiment}, {"run_id", r.run_id}, {"solver", r.solver_name}, {"label", r.label},
                     {"repeat", r.repeat}, {"sweep_point", r.sweep_point}, {"seeds", r.config["seeds"]},
                     {"config_hash", config_hash(r, reg)}, {"config", r.config}});
    std::cout << out.dump(1) << "\n";
    return 0;
  }
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
  std::vector<std::string> sets = ra.sets;
  const slurm::Options exec = slurm::read_options(ra.file, sets, ra.executor_options);
  if (!ra.slurm_task) slurm::refuse_unused(exec);
  if (ra.wait && exec.name != "slurm")
    throw ConfigError("--wait waits for a Slurm submission: it needs --executor slurm (a local run always waits)");
  auto runs = selected_runs(ra, sets, reg);
  if (runs.empty()) {
    std::cout << ra.file << ": no runs in this selection\n";
    return 0;
  }
  if (exec.name == "slurm" && !ra.slurm_task)
    return slurm::submit(runs, exec, {ra.file, sets, ra.out, ra.deadline, ra.force, ra.wait}, reg);
  // One writer per results folder (Slurm tasks share it: they run disjoint runs).
  FolderLock lock((fs::path(ra.out) / runs.front().experiment).string(),
                  ra.slurm_task ? FolderLock::Mode::shared : FolderLock::Mode::exclusive, ra.wait_lock);
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
  std::cout << fmt::format("{} runs: {} done, {} budget, {} skipped, {} diverged, {} timeout, {} failed", s.total, s.done,
                           s.budget, s.skipped, s.diverged, s.timeout, s.failed);
  if (s.interrupted) std::cout << fmt::format(", {} interrupted", s.interrupted);
  std::cout << "\n";
  if (s.stop_signal) {
    // Stopped by a signal: the folder is resumable; the report would show an unfinished sweep.
    std::cout << fmt::format("stopped by signal {} ({}); run the same command again to resume\n", s.stop_signal,
                             strsignal(s.stop_signal));
    return 128 + s.stop_signal;
  }
  std::cout << "results: " << exp_dir.string() << "\n";
  bool report_failed = false;
  if (!ra.no_report) {
    try {
      auto html = compare::write_report({exp_dir.string()}, (exp_dir / "report.html").string());
      std::cout << "report: " << html << "\n";
    } catch (const std::exception& e) {
      // The runs' run.json files are kept; a report that could not be written (a full disk, no
      // uPlot) fails the command, so that no script takes an old or missing report for this one.
      std::cerr << "dualgap run: the report was not written: " << e.what()
                << "\n(the run.json files are kept; 'dualgap compare " << exp_dir.string()
                << " --html FILE' writes it later; --no-report skips it)\n";
      report_failed = true;
    }
  }
  return s.any_failure() || report_failed ? 1 : 0;
}

int run_command(const std::string& cmd, const std::vector<std::string>& args);

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string cmd = argv[1];
  int code = run_command(cmd, rest(argc, argv, 2));
  // What a command prints is its output too (tables, --json=-, a list redirected to a file): a
  // failed write there (a full disk) fails the command instead of exiting 0 on a cut file.
  std::cout.flush();
  if (!std::cout && code == 0) {
    const int err = errno;
    std::cerr << "dualgap " << cmd << ": writing the standard output failed"
              << (err ? ": " + system_reason(err) : std::string()) << "\n";
    code = 1;
  }
  return code;
}

namespace {

int run_command(const std::string& cmd, const std::vector<std::string>& args) {
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
    if (cmd == "status") return status_main(args);
    if (cmd == "plugins") return cmd_plugins(args);
    if (cmd == "describe") return cmd_describe(args);
    if (cmd == "compare") return compare::compare_main(args);
    if (cmd == "evaluate") return evaluate_main(args);
    if (cmd == "check") return check::check_main(args);
    if (cmd == "data") return datafetch::data_main(args);
    if (cmd == "new-plugin") return scaffold::new_plugin_main(args);
    std::cerr << "dualgap: unknown command '" << cmd << "'\n\n" << kUsage;
    return 2;
  } catch (const LockBusy& e) {
    std::cerr << "error: " << e.what() << "\n";
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

}  // namespace
