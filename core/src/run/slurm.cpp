#include "run/slurm.hpp"
#include "base/json_text.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <set>
#include <thread>

#include "run/lock.hpp"
#include "run/recorder.hpp"
#include "run/run_files.hpp"
#include "run/runner.hpp"
#include "base/process.hpp"
#include "base/util.hpp"

namespace dualgap::slurm {
namespace fs = std::filesystem;

namespace {

const std::set<std::string> kKeys = {"name",           "partition",     "time",       "mem", "cpus_per_task",
                                     "max_concurrent", "runs_per_task", "sbatch_args"};

// sbatch options an --sbatch-arg may not set: dualgap sets them itself (array, output, chdir,
// dependency, parsable), or they would decide what runs in the job or with which environment
// and files (export, wrap, container, burst buffers, input, get-user-env, uid/gid), or make
// sbatch print something else than a job id (help, usage, version, test-only, wait).
const std::set<std::string> kRefusedSbatch = {
    "array",  "bb",     "bbf",       "chdir", "container", "dependency", "error", "export", "export-file",
    "get-user-env", "gid", "help", "input", "output", "parsable", "test-only", "uid", "usage", "version",
    "wait",   "wrap"};

// `v` for a message: printable, and a tab shown as \x09 like the other control characters.
std::string shown(const std::string& v) {
  std::string p = printable(v), out;
  for (char c : p) out += c == '\t' ? std::string("\\x09") : std::string(1, c);
  return out;
}

// Every value that reaches a generated script is one line of printable characters: a newline
// or carriage return would end an #SBATCH line and start a command, and sbatch reads no
// directive after the first command.
void check_line(const std::string& value, const std::string& what) {
  for (unsigned char c : value)
    if (c < 0x20 || c == 0x7f)
      throw ConfigError(fmt::format("{} '{}': contains the control character \\x{:02X}; values written into the Slurm "
                                    "scripts must be one line of printable characters",
                                    what, shown(value), static_cast<unsigned>(c)));
}

// One sbatch option in its long form, --name or --name=value, that is not refused. A prefix
// counts as the option it abbreviates (getopt accepts `--exp` for --export).
void check_sbatch_arg(const std::string& a, const std::string& what) {
  check_line(a, what);
  if (a.size() < 3 || a.rfind("--", 0) != 0 || a[2] == '=')
    throw ConfigError(fmt::format("{} '{}': expected one sbatch option in its long form, --name or --name=value "
                                  "(e.g. --account=lab)",
                                  what, shown(a)));
  const std::string name = a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2);
  if (name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != std::string::npos)
    throw ConfigError(fmt::format("{} '{}': expected one sbatch option in its long form, --name or --name=value "
                                  "(e.g. --account=lab; one option per argument)",
                                  what, shown(a)));
  for (auto& r : kRefusedSbatch)
    if (r.rfind(name, 0) == 0)
      throw ConfigError(fmt::format("{} '{}': sbatch --{} is not allowed: dualgap sets the array, output, working "
                                    "folder and dependency of its jobs, and an experiment's settings may not choose "
                                    "the job's program, environment or input files",
                                    what, shown(a), r));
}

// How a setting is named in messages: the option itself (--partition), or where it was set and
// its key (exp.yaml:5:14: executor.partition, --set '...': executor.partition).
std::string label(const std::string& where, const std::string& key) {
  if (where.rfind("--", 0) == 0 && where.rfind("--set", 0) != 0) return where;
  return where + ": executor." + key;
}

void apply(Options& o, const std::string& key, const json& v, const std::string& where) {
  auto need = [&](bool ok, const char* what) {
    if (!ok)
      throw ConfigError(fmt::format("{}: executor.{} must be {}, got {}", where, key, what,
                                    shown(json_text(v))));
  };
  auto positive = [&](int& out, int min) {
    need(v.is_number_integer() && v.get<long long>() >= min && v.get<long long>() <= 1000000,
         min == 0 ? "an integer >= 0" : "an integer >= 1");
    out = v.get<int>();
  };
  if (!kKeys.count(key))
    throw ConfigError(fmt::format("{}: unknown executor key '{}' (valid keys: {})", where, shown(key), fmt::join(kKeys, ", ")));
  if (key == "name") {
    need(v.is_string() && (v == "local" || v == "slurm"), "'local' or 'slurm'");
    o.name = v;
  } else if (key == "partition" || key == "time" || key == "mem") {
    need(v.is_string() || v.is_number(), "a string");
    std::string s = v.is_string() ? v.get<std::string>() : json_text(v);
    check_line(s, label(where, key));
    (key == "partition" ? o.partition : key == "time" ? o.time : o.mem) = s;
  } else if (key == "cpus_per_task") {
    positive(o.cpus_per_task, 1);
  } else if (key == "max_concurrent") {
    positive(o.max_concurrent, 0);
  } else if (key == "runs_per_task") {
    positive(o.runs_per_task, 1);
  } else {
    need(v.is_array() && std::all_of(v.begin(), v.end(), [](const json& a) { return a.is_string(); }),
         "a list of strings, e.g. [--account=lab, --qos=short]");
    o.sbatch_args = v.get<std::vector<std::string>>();
    for (auto& a : o.sbatch_args) check_sbatch_arg(a, label(where, key));
  }
  o.origin[key] = where;
}

// Runs a Slurm command, returns its stdout; throws with its messages when it fails.
std::string capture(const std::vector<std::string>& argv) {
  ProcessOptions po;
  po.timeout_s = 300;  // a controller that does not answer: sbatch itself gives up long before
  const ProcessResult r = run_process(argv, po);
  if (!r.ok()) {
    std::string msg = r.err.empty() ? r.out : r.err;
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    throw std::runtime_error(fmt::format("`{}` failed ({}): {}", describe_command(argv), r.how_ended(),
                                         msg.empty() ? "(no output)" : printable(msg)));
  }
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// The job id of `sbatch --parsable` ("123" or "123;cluster"), which must be digits: it is
// passed on to sbatch --dependency and squeue, and written into submission.json.
std::string parsed_job_id(const std::string& out, const std::string& script) {
  const std::string id = out.substr(0, out.find(';'));
  if (id.empty() || id.size() > 20 || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error(fmt::format("sbatch --parsable {} printed '{}', not a job id", printable(script), printable(out)));
  return id;
}

std::string self_exe() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("dualgap") : p.string();
}

// A batch script put together so that no value can end a line or leave its quotes: every
// value is checked by check_line, every #SBATCH argument goes through directive_quote and every
// shell word through shell_quote, and a directive after the first command (which sbatch would
// ignore) is a bug caught here.
class Script {
 public:
  explicit Script(const std::string& comment) : text_("#!/bin/bash\n# " + comment + "\n") {}
  /// #SBATCH --option=value
  void directive(const std::string& option, const std::string& value, const std::string& what) {
    check_line(value, what);
    argument(option + "=" + value);
  }
  /// #SBATCH ARG, one argument (an --sbatch-arg)
  void argument(const std::string& arg) {
    if (commands_) throw std::logic_error("an #SBATCH line after the first command of a batch script");
    check_line(arg, "an sbatch argument");
    text_ += "#SBATCH " + directive_quote(arg) + "\n";
  }
  /// One shell word: checked, then quoted.
  static std::string word(const std::string& value, const std::string& what) {
    check_line(value, what);
    return shell_quote(value);
  }
  /// A command line made of literal text and word()s.
  void command(const std::string& line) {
    commands_ = true;
    text_ += line + "\n";
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  bool commands_ = false;
};

// An --output file name pattern for `path` (folder of the logs) and `name` (with the %a of
// the task): sbatch replaces %x patterns and reads %% as a percent sign, and a backslash
// anywhere in the pattern turns all patterns off, so a folder path with one cannot be used.
std::string output_pattern(const fs::path& folder, const std::string& name) {
  const std::string f = folder.string();
  if (f.find('\\') != std::string::npos)
    throw ConfigError(fmt::format("the results folder '{}' contains a backslash: Slurm reads a backslash in an --output "
                                  "path as 'no %a patterns', so the task logs cannot be written there; choose --out "
                                  "without one",
                                  shown(f)));
  std::string p;
  for (char c : f) p += c == '%' ? std::string("%%") : std::string(1, c);
  return p + "/" + name;
}

std::string origin_of(const Options& o, const std::string& key) {
  auto it = o.origin.find(key);
  return it == o.origin.end() ? "executor." + key : label(it->second, key);
}

void resources(Script& s, const Options& o, bool per_task) {
  if (!o.partition.empty()) s.directive("--partition", o.partition, origin_of(o, "partition"));
  if (per_task && !o.time.empty()) s.directive("--time", o.time, origin_of(o, "time"));
  if (per_task && !o.mem.empty()) s.directive("--mem", o.mem, origin_of(o, "mem"));
  if (per_task && o.cpus_per_task > 0) s.directive("--cpus-per-task", std::to_string(o.cpus_per_task), "executor.cpus_per_task");
  for (auto& a : o.sbatch_args) {
    check_sbatch_arg(a, origin_of(o, "sbatch_args"));
    s.argument(a);
  }
}

std::string array_script(const Options& o, const Submission& sub, const fs::path& subdir, const std::string& exp_name,
                         std::size_t tasks, const std::string& cwd) {
  Script s("Written by `dualgap run --executor slurm`; one array task per share of runs.txt.");
  s.directive("--job-name", "dualgap-" + exp_name, "the experiment name");
  s.directive("--array", fmt::format("0-{}{}", tasks - 1, o.max_concurrent > 0 ? fmt::format("%{}", o.max_concurrent) : ""),
              "--array");
  // The tasks start where the submission was made and get the experiment path as it was given:
  // the path is part of each run's recorded config and config hash (resume must recognise it).
  s.directive("--chdir", cwd, "the working folder");
  s.directive("--output", output_pattern(subdir, "task-%a.log"), "--out");
  resources(s, o, true);
  s.command("set -euo pipefail");
  s.command(fmt::format("first=$(( SLURM_ARRAY_TASK_ID * {} + 1 ))", o.runs_per_task));
  s.command("ids=()");
  s.command(fmt::format("while IFS= read -r id; do ids+=(--only-id \"$id\"); done < <(sed -n \"${{first}},$((first + {})){}\" {})",
                        o.runs_per_task - 1, "p", Script::word((subdir / "runs.txt").string(), "--out")));
  std::string cmd = fmt::format("exec {} run {} --out {} --no-report --slurm-task --jobs {}",
                                Script::word(self_exe(), "the path of the dualgap executable"),
                                Script::word(sub.experiment_file, "the experiment file path"),
                                Script::word(fs::absolute(sub.out_dir).string(), "--out"), std::max(1, o.cpus_per_task));
  for (auto& set : sub.sets) cmd += " --set " + Script::word(set, "--set");
  if (sub.deadline_s > 0) cmd += fmt::format(" --deadline {}", sub.deadline_s);
  if (sub.force) cmd += " --force";
  s.command(cmd + " \"${ids[@]}\"");
  return s.text();
}

std::string report_script(const Options& o, const fs::path& subdir, const fs::path& exp_dir, const std::string& exp_name) {
  Script s("Written by `dualgap run --executor slurm`: the report, once, after the array.");
  s.directive("--job-name", "dualgap-report-" + exp_name, "the experiment name");
  s.directive("--output", output_pattern(subdir, "report.log"), "--out");
  resources(s, o, false);
  s.command(fmt::format("exec {} compare {} --html {}", Script::word(self_exe(), "the path of the dualgap executable"),
                        Script::word(fs::absolute(exp_dir).string(), "--out"),
                        Script::word(fs::absolute(exp_dir / "report.html").string(), "--out")));
  return s.text();
}

}  // namespace

std::string shell_quote(const std::string& word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string directive_quote(const std::string& arg) {
  std::string q = "\"";
  for (char c : arg) {
    if (c == '\\' || c == '"') q += '\\';
    q += c;
  }
  return q + "\"";
}

Options read_options(const std::string& experiment_file, std::vector<std::string>& sets,
                     const std::vector<Override>& cli) {
  Options o;
  LocatedJson doc = load_yaml(experiment_file);
  if (doc.value.is_object() && doc.value.contains("executor")) {
    const json& ex = doc.value["executor"];
    if (!ex.is_object())
      throw ConfigError(fmt::format("{}: executor must be a mapping, e.g. {{name: slurm, partition: short}}",
                                    doc.locate("/executor")));
    for (auto& [k, v] : ex.items()) apply(o, k, v, doc.locate("/executor/" + k));
  }
  std::vector<std::string> kept;
  for (auto& s : sets) {
    const auto eq = s.find('=');
    const std::string where = "--set '" + shown(s) + "'";
    if (s.rfind("executor.", 0) == 0 && eq != std::string::npos) {
      apply(o, s.substr(9, eq - 9), parse_yaml_value(s.substr(eq + 1)), where);
    } else if (s.rfind("executor=", 0) == 0) {
      // the whole section at once: each key as if set one by one (else the expansion would drop it)
      const json v = parse_yaml_value(s.substr(eq + 1));
      if (!v.is_object())
        throw ConfigError(fmt::format("{}: executor must be a mapping, e.g. {{name: slurm, partition: short}}", where));
      for (auto& [k, x] : v.items()) apply(o, k, x, where);
    } else {
      kept.push_back(s);
    }
  }
  for (auto& c : cli) apply(o, c.key, c.value, c.where);
  sets = kept;
  return o;
}

void refuse_unused(const Options& o) {
  if (o.name == "slurm") return;
  const bool local_chosen = o.origin.count("name") > 0;
  for (auto& [key, where] : o.origin) {
    if (key == "name") continue;
    const bool from_command_line = where.rfind("--", 0) == 0;
    if (local_chosen && !from_command_line) continue;
    throw ConfigError(fmt::format("{} is a Slurm setting, but the runs would run on this machine: it needs --executor "
                                  "slurm (or executor: {{name: slurm}} in the experiment){}",
                                  label(where, key),
                                  local_chosen ? "" : "; to run here, leave it out or choose --executor local"));
  }
}

int submit(const std::vector<RunSpec>& runs, const Options& o, const Submission& sub, const PluginRegistry& reg) {
  if (runs.empty()) throw ConfigError("no runs to submit");
  const std::string exp_name = runs.front().experiment;
  const fs::path exp_dir = fs::path(sub.out_dir) / exp_name;
  // The scripts are made once before anything is written (the lock below creates the folder):
  // a value that cannot go into them (a newline in --out, a backslash) is refused first.
  check_line(fs::current_path().string(), "the working folder");
  check_line(fs::absolute(sub.out_dir).string(), "--out");
  array_script(o, sub, fs::absolute(exp_dir / ".slurm" / "check"), exp_name, 1, fs::current_path().string());
  report_script(o, fs::absolute(exp_dir / ".slurm" / "check"), exp_dir, exp_name);
  std::vector<std::string> ids;
  std::size_t finished = 0;
  {
    // A local `dualgap run` writing here now would race the array; Slurm tasks share the lock.
    FolderLock lock(exp_dir.string(), FolderLock::Mode::exclusive, false);
    for (auto& r : runs) {
      if (!sub.force && finished_before((exp_dir / r.run_id).string(), config_hash(r, reg))) {
        ++finished;
        continue;
      }
      ids.push_back(r.run_id);
    }
  }
  if (ids.empty()) {
    std::cout << fmt::format("nothing to submit: all {} runs finished before (same config hash; --force to rerun)\n",
                             runs.size());
    return 0;
  }
  const std::size_t tasks = (ids.size() + static_cast<std::size_t>(o.runs_per_task) - 1) / static_cast<std::size_t>(o.runs_per_task);
  const fs::path subdir = fs::absolute(exp_dir / ".slurm" / fmt::format("{}-{}", iso_time_now(), ::getpid()));
  // Everything is checked and written out in memory first: a value that cannot go into a script
  // leaves no submission folder behind.
  std::string list;
  for (auto& id : ids) {
    check_line(id, "the run id");  // one per line of runs.txt, read back by `read -r`
    list += id + "\n";
  }
  const std::string array_text = array_script(o, sub, subdir, exp_name, tasks, fs::current_path().string());
  const std::string report_text = report_script(o, subdir, exp_dir, exp_name);
  fs::create_directories(subdir);
  write_file_atomic((subdir / "runs.txt").string(), list);
  write_file_atomic((subdir / "array.sbatch").string(), array_text);
  write_file_atomic((subdir / "report.sbatch").string(), report_text);

  const std::string array_script_path = (subdir / "array.sbatch").string();
  const std::string array_id = parsed_job_id(capture({"sbatch", "--parsable", array_script_path}), array_script_path);
  const std::string report_script_path = (subdir / "report.sbatch").string();
  const std::string report_id = parsed_job_id(
      capture({"sbatch", "--parsable", "--dependency=afterany:" + array_id, report_script_path}), report_script_path);
  json info = {{"array_job", array_id},  {"report_job", report_id},          {"runs", ids.size()},
               {"tasks", tasks},         {"runs_per_task", o.runs_per_task}, {"max_concurrent", o.max_concurrent},
               {"submitted", iso_time_now()}, {"skipped_finished", finished}};
  write_file_atomic((subdir / "submission.json").string(), json_text(info, 1));
  std::cout << fmt::format(
      "submitted {} runs ({} finished before, not submitted) as Slurm job array {} ({} tasks of {} runs{}); "
      "report job {} (afterany)\nscripts and logs: {}\nfollow with: dualgap status {}\n",
      ids.size(), finished, array_id, tasks, o.runs_per_task,
      o.max_concurrent > 0 ? fmt::format(", at most {} at once", o.max_concurrent) : "", report_id, subdir.string(),
      exp_dir.string());
  std::cout.flush();
  if (!sub.wait) return 0;

  // --wait: until both jobs have left the queue (squeue forgets them; sacct may not exist).
  for (;;) {
    std::string q;
    try {
      q = capture({"squeue", "-h", "-j", array_id + "," + report_id, "-o", "%i"});
    } catch (const std::exception&) {
      q = "";  // "Invalid job id": both purged already
    }
    if (q.empty()) break;
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
  int done = 0, budget = 0, diverged = 0, bad = 0;
  for (auto& id : ids) {
    std::optional<RunStatus> st;  // none: not run, or a run.json the checked reader refuses
    try {
      st = run_status_from_string(
          read_run_file((exp_dir / id / "run.json").string(), CurveMode::columns).doc["status"].get<std::string>());
    } catch (const std::exception&) {
    }
    if (st == RunStatus::done) ++done;
    else if (st == RunStatus::budget) ++budget;
    else if (st == RunStatus::diverged) ++diverged;
    else ++bad;
  }
  std::cout << fmt::format("{} submitted runs: {}, {} diverged, {} failed, timed out, interrupted or "
                           "not run (see dualgap status {})\n",
                           ids.size(), finished_counts(done, budget), diverged, bad, exp_dir.string());
  return bad > 0 ? 1 : 0;
}

}  // namespace dualgap::slurm
