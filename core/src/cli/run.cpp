// `dualgap run` and `dualgap validate`: one experiment, its runs selected by --only, --only-id
// and --shard, then run (locally or on Slurm) or checked and listed.
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "cli/entries.hpp"
#include "compare/compare.hpp"
#include "experiment/config.hpp"
#include "experiment/schema.hpp"
#include "experiment/selection.hpp"
#include "plugins/loader.hpp"
#include "run/data_check.hpp"
#include "run/lock.hpp"
#include "run/recorder.hpp"
#include "run/runner.hpp"
#include "run/slurm.hpp"

namespace fs = std::filesystem;

namespace dualgap::cli {

namespace {

/// The options both commands share: which runs of the experiment, and how it is expanded.
void selection_options(po::options_description& d) {
  d.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                  "override a value by dotted key, e.g. stop.max_passes=10 or "
                  "solvers.MP-BCFW.params.M=5 (repeatable)")(
      "only", po::value<std::vector<std::string>>()->composing(),
      "keep only the runs whose id matches this glob, e.g. 'MP-BCFW__r3' or '*__r[0-4]' (repeatable; "
      "seeds stay those of the full experiment)")(
      "only-id", po::value<std::vector<std::string>>()->composing(),
      "keep only the run with exactly this id (no glob; repeatable)")(
      "shard", po::value<std::string>(),
      "keep the I-th of N disjoint, balanced shares of the runs, e.g. --shard 3/8 (run k goes to share k mod N)")(
      "allow-large", "expand an experiment of more than 100000 runs or sweep points (refused by default: each "
                     "expanded run is held in memory, see 'Experiment size' in README.md)");
}

void print_problems(const PluginRegistry& reg) {
  for (auto& p : reg.problems()) std::cerr << "warning: " << p << "\n";
  for (auto& w : reg.warnings()) std::cerr << "warning: " << w << "\n";
}

/// Keeps the runs whose id matches one of the globs (all runs when there are none). A glob that
/// matches nothing is an error naming the run ids, so a typo cannot silently run nothing.
std::vector<RunSpec> select_globs(const std::vector<RunSpec>& runs, const std::vector<std::string>& globs) {
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

/// The experiment expanded with `sets`, then --only globs and --only-id exact ids (either
/// keeps a run), then --shard of what is left.
std::vector<RunSpec> selected_runs(const Args& a, const std::vector<std::string>& sets, const PluginRegistry& reg) {
  // A Slurm task expands the experiment its submitter expanded (and allowed).
  const bool allow_large = a.has("allow-large") || a.has("slurm-task");
  auto all = expand_experiment(a.text("experiment"), ExpandOptions{sets, allow_large}, reg);
  std::vector<RunSpec> runs = all;
  const auto only = a.list("only"), only_id = a.list("only-id");
  if (!only.empty() || !only_id.empty()) {
    std::set<std::string> keep;
    if (!only.empty())
      for (auto& r : select_globs(all, only)) keep.insert(r.run_id);
    if (!only_id.empty())
      for (auto& r : select_ids(all, only_id)) keep.insert(r.run_id);
    runs.clear();
    for (auto& r : all)
      if (keep.count(r.run_id)) runs.push_back(r);
  }
  if (a.has("shard")) runs = select_shard(runs, parse_shard(a.text("shard")));
  return runs;
}

/// Executor options given on the command line, applied after the file and --set; each named by
/// its option in messages.
std::vector<slurm::Override> executor_overrides(const Args& a) {
  std::vector<slurm::Override> ex;
  for (const char* k : {"partition", "time", "mem"})
    if (a.has(k)) ex.push_back({k, a.text(k), std::string("--") + k});
  for (const char* k : {"cpus-per-task", "max-concurrent", "runs-per-task"})
    if (a.has(k)) {
      std::string key = k;
      std::replace(key.begin(), key.end(), '-', '_');
      ex.push_back({key, a.get<int>(k), std::string("--") + k});
    }
  if (a.has("sbatch-arg")) ex.push_back({"sbatch_args", a.list("sbatch-arg"), "--sbatch-arg"});
  if (a.has("executor")) ex.push_back({"name", a.text("executor"), "--executor"});
  return ex;
}

void print_summary(const RunnerSummary& s) {
  std::cout << fmt::format("{} runs: {}, {} skipped (finished before), {} diverged, {} timeout, {} failed", s.total,
                           finished_counts(s.done, s.budget), s.skipped, s.diverged, s.timeout, s.failed);
  if (s.interrupted) std::cout << fmt::format(", {} interrupted", s.interrupted);
  std::cout << "\n";
}

/// The report of the experiment's folder; false (named on stderr) when it could not be written.
bool write_run_report(const fs::path& exp_dir) {
  try {
    auto html = compare::write_report({exp_dir.string()}, (exp_dir / "report.html").string());
    std::cout << "report: " << html << "\n";
    return true;
  } catch (const std::exception& e) {
    // The runs' run.json files are kept; a report that could not be written (a full disk, no
    // uPlot) fails the command, so that no script takes an old or missing report for this one.
    std::cerr << "dualgap run: the report was not written: " << e.what()
              << "\n(the run.json files are kept; 'dualgap compare " << exp_dir.string()
              << " --html FILE' writes it later; --no-report skips it)\n";
    return false;
  }
}

/// The local run of `runs` into --out: one writer per results folder (Slurm tasks share it:
/// they run disjoint runs).
int run_locally(const Args& a, const std::vector<RunSpec>& runs, const PluginRegistry& reg) {
  const std::string out = a.text("out");
  const fs::path exp_dir = fs::path(out) / runs.front().experiment;
  const bool task = a.has("slurm-task");
  FolderLock lock(exp_dir.string(), task ? FolderLock::Mode::shared : FolderLock::Mode::exclusive,
                  a.has("wait-lock"));
  RunnerOptions opts;
  opts.out_dir = out;
  opts.jobs = a.get<int>("jobs");
  opts.force = a.has("force");
  opts.deadline_s = a.maybe<double>("deadline").value_or(0);
  opts.progress_tty = isatty(STDOUT_FILENO);
  std::cout << fmt::format("{}: {} runs, {} at once, results in {}\n", a.text("experiment"), runs.size(), opts.jobs,
                           exp_dir.string());
  const RunnerSummary s = run_all(runs, opts, reg);
  print_summary(s);
  if (s.stop_signal) {
    // Stopped by a signal: the folder is resumable; the report would show an unfinished sweep.
    std::cout << fmt::format("stopped by signal {} ({}); run the same command again to resume\n", s.stop_signal,
                             strsignal(s.stop_signal));
    return 128 + s.stop_signal;
  }
  std::cout << "results: " << exp_dir.string() << "\n";
  const bool report_ok = a.has("no-report") || write_run_report(exp_dir);
  return s.any_failure() || !report_ok ? 1 : 0;
}

}  // namespace

void run_options(po::options_description& d) {
  selection_options(d);
  d.add_options()("jobs,j", whole(1, 4096, "the number of runs at once")->default_value(1),
                  "runs at once (child processes)")("out,o", output_path()->default_value("runs"), "results folder (results/ holds the reference runs: results/README.md)")(
      "force", "rerun runs that finished before with the same config hash")(
      "deadline", positive("a limit in seconds"), "hard wall-clock limit per run in seconds (watchdog)")(
      "no-report", "do not write the HTML report")(
      "wait-lock", "when another dualgap run writes into the same results folder, wait for it (default: exit 2)")(
      "executor", po::value<std::string>(), "local (default) or slurm: submit one job array (see docs/cluster.md)")(
      "partition", po::value<std::string>(), "slurm: sbatch --partition")(
      "time", po::value<std::string>(), "slurm: sbatch --time, per task (e.g. 2:00:00)")(
      "mem", po::value<std::string>(), "slurm: sbatch --mem, per task (e.g. 4G)")(
      "cpus-per-task", po::value<int>(), "slurm: sbatch --cpus-per-task; also the --jobs of each task")(
      "max-concurrent", po::value<int>(), "slurm: tasks running at once (--array=0-N%K)")(
      "runs-per-task", po::value<int>(), "slurm: runs per array task (default 1)")(
      "sbatch-arg", po::value<std::vector<std::string>>()->composing(),
      "slurm: one more sbatch option in its long form, e.g. --sbatch-arg=--account=lab (repeatable)")(
      "wait", "slurm: block until the array and the report job are done; exit 0/1 as a local run");
}

void run_internal_options(po::options_description& d) {
  d.add_options()("slurm-task", "run as a task of a Slurm array (shares the folder's lock with its siblings)");
}

int run_main(const Args& a) {
  auto& reg = registry();
  reg.when_scanned(print_problems);  // before any error their absence causes
  const std::string file = a.text("experiment");
  std::vector<std::string> sets = a.list("set");
  const slurm::Options exec = slurm::read_options(file, sets, executor_overrides(a));
  const bool task = a.has("slurm-task");
  if (!task) slurm::refuse_unused(exec);
  if (a.has("wait") && exec.name != "slurm")
    throw ConfigError("--wait waits for a Slurm submission: it needs --executor slurm (a local run always waits)");
  auto runs = selected_runs(a, sets, reg);
  if (runs.empty()) {
    std::cout << file << ": no runs in this selection\n";
    return 0;
  }
  if (exec.name == "slurm" && !task)
    return slurm::submit(runs, exec,
                         {file, sets, a.text("out"), a.maybe<double>("deadline").value_or(0), a.has("force"),
                          a.has("wait")},
                         reg);
  return run_locally(a, runs, reg);
}

void validate_options(po::options_description& d) {
  selection_options(d);
  d.add_options()("json", "print the expanded runs as JSON (ids, config hashes, seeds)")(
      "no-data", "do not load the data sets (by default each is prepared once and the plugins' parameters are "
                 "checked against it)");
}

int validate_main(const Args& a) {
  auto& reg = registry();
  reg.when_scanned(print_problems);  // before any error their absence causes
  const std::string file = a.text("experiment");
  std::vector<std::string> sets = a.list("set");
  slurm::refuse_unused(slurm::read_options(file, sets));  // validates the executor section too
  const auto runs = selected_runs(a, sets, reg);
  if (a.has("json")) {
    json out = json::array();
    for (auto& r : runs)
      out.push_back({{"experiment", r.experiment}, {"run_id", r.run_id}, {"solver", r.solver_name}, {"label", r.label},
                     {"repeat", r.repeat}, {"sweep_point", r.sweep_point}, {"seeds", r.config["seeds"]},
                     {"config_hash", config_hash(r, reg)}, {"config", r.config}});
    std::cout << json_text(out, 1) << "\n";
    return 0;
  }
  // The data first: "valid" is printed only once the plugins' rules against the data held too.
  std::ostringstream data;
  if (!a.has("no-data")) check_run_data(runs, reg, data);
  std::cout << fmt::format("{}: valid; {} runs\n", file, runs.size());
  for (auto& r : runs) {
    std::string sweep = r.sweep_point.empty() ? "" : " " + json_text(r.sweep_point);
    std::cout << fmt::format("  {:<44} solver {} ({}) repeat {}{} seeds {}\n", r.run_id, r.solver_name,
                             r.config["solver"]["plugin"].get<std::string>(), r.repeat, sweep,
                             json_text(r.config["seeds"]));
  }
  std::cout << data.str();
  return 0;
}

}  // namespace dualgap::cli
