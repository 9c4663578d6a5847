#include "run/slurm.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <set>
#include <thread>

#include "run/lock.hpp"
#include "run/runner.hpp"
#include "base/util.hpp"

namespace dualgap::slurm {
namespace fs = std::filesystem;

namespace {

const std::set<std::string> kKeys = {"name",           "partition",     "time",       "mem", "cpus_per_task",
                                     "max_concurrent", "runs_per_task", "sbatch_args"};

void apply(Options& o, const std::string& key, const json& v, const std::string& where) {
  auto need = [&](bool ok, const char* what) {
    if (!ok) throw ConfigError(fmt::format("{}: executor.{} must be {}, got {}", where, key, what, v.dump()));
  };
  auto positive = [&](int& out, int min) {
    need(v.is_number_integer() && v.get<long long>() >= min && v.get<long long>() <= 1000000,
         min == 0 ? "an integer >= 0" : "an integer >= 1");
    out = v.get<int>();
  };
  if (!kKeys.count(key))
    throw ConfigError(fmt::format("{}: unknown executor key '{}' (valid keys: {})", where, key, fmt::join(kKeys, ", ")));
  if (key == "name") {
    need(v.is_string() && (v == "local" || v == "slurm"), "'local' or 'slurm'");
    o.name = v;
  } else if (key == "partition" || key == "time" || key == "mem") {
    need(v.is_string() || v.is_number(), "a string");
    std::string s = v.is_string() ? v.get<std::string>() : v.dump();
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
  }
}

// Runs a command, returns its stdout; throws with its output when it fails.
std::string capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("cannot run: " + cmd);
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int st = pclose(p);
  if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
    throw std::runtime_error(fmt::format("`{}` failed: {}", cmd, out.empty() ? "(no output)" : out));
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string self_exe() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("dualgap") : p.string();
}

std::string script_text(const Options& o, const Submission& sub, const fs::path& subdir, const std::string& exp_name,
                        std::size_t tasks) {
  std::string s = "#!/bin/bash\n# Written by `dualgap run --executor slurm`; one array task per share of runs.txt.\n";
  s += fmt::format("#SBATCH --job-name={}\n", shell_quote("dualgap-" + exp_name));
  s += fmt::format("#SBATCH --array=0-{}{}\n", tasks - 1, o.max_concurrent > 0 ? fmt::format("%{}", o.max_concurrent) : "");
  s += fmt::format("#SBATCH --output={}\n", (subdir / "task-%a.log").string());
  // The tasks start where the submission was made and get the experiment path as it was given:
  // the path is part of each run's recorded config and config hash (resume must recognise it).
  s += fmt::format("#SBATCH --chdir={}\n", fs::current_path().string());
  if (!o.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.time.empty()) s += fmt::format("#SBATCH --time={}\n", o.time);
  if (!o.mem.empty()) s += fmt::format("#SBATCH --mem={}\n", o.mem);
  if (o.cpus_per_task > 0) s += fmt::format("#SBATCH --cpus-per-task={}\n", o.cpus_per_task);
  for (auto& a : o.sbatch_args) s += fmt::format("#SBATCH {}\n", a);
  s += "set -euo pipefail\n";
  s += fmt::format("first=$(( SLURM_ARRAY_TASK_ID * {} + 1 ))\n", o.runs_per_task);
  s += "ids=()\n";
  s += fmt::format("while IFS= read -r id; do ids+=(--only-id \"$id\"); done < <(sed -n \"${{first}},$((first + {})){}\" {})\n",
                   o.runs_per_task - 1, "p", shell_quote((subdir / "runs.txt").string()));
  std::string cmd = fmt::format("exec {} run {} --out {} --no-report --slurm-task --jobs {}", shell_quote(self_exe()),
                                shell_quote(sub.experiment_file),
                                shell_quote(fs::absolute(sub.out_dir).string()), std::max(1, o.cpus_per_task));
  for (auto& set : sub.sets) cmd += " --set " + shell_quote(set);
  if (sub.deadline_s > 0) cmd += fmt::format(" --deadline {}", sub.deadline_s);
  if (sub.force) cmd += " --force";
  s += cmd + " \"${ids[@]}\"\n";
  return s;
}

}  // namespace

std::string shell_quote(const std::string& word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

Options read_options(const std::string& experiment_file, std::vector<std::string>& sets) {
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
    if (s.rfind("executor.", 0) == 0 && eq != std::string::npos)
      apply(o, s.substr(9, eq - 9), parse_yaml_value(s.substr(eq + 1)), "--set '" + s + "'");
    else
      kept.push_back(s);
  }
  sets = kept;
  return o;
}

int submit(const std::vector<RunSpec>& runs, const Options& o, const Submission& sub, const PluginRegistry& reg) {
  if (runs.empty()) throw ConfigError("no runs to submit");
  const std::string exp_name = runs.front().experiment;
  const fs::path exp_dir = fs::path(sub.out_dir) / exp_name;
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
  fs::create_directories(subdir);
  std::string list;
  for (auto& id : ids) list += id + "\n";
  write_file_atomic((subdir / "runs.txt").string(), list);
  write_file_atomic((subdir / "array.sbatch").string(), script_text(o, sub, subdir, exp_name, tasks));
  const std::string report_script = fmt::format(
      "#!/bin/bash\n# Written by `dualgap run --executor slurm`: the report, once, after the array.\n"
      "#SBATCH --job-name={}\n#SBATCH --output={}\n{}{}exec {} compare {} --html {}\n",
      shell_quote("dualgap-report-" + exp_name), (subdir / "report.log").string(),
      o.partition.empty() ? "" : fmt::format("#SBATCH --partition={}\n", o.partition),
      [&] {
        std::string a;
        for (auto& x : o.sbatch_args) a += "#SBATCH " + x + "\n";
        return a;
      }(),
      shell_quote(self_exe()), shell_quote(fs::absolute(exp_dir).string()),
      shell_quote(fs::absolute(exp_dir / "report.html").string()));
  write_file_atomic((subdir / "report.sbatch").string(), report_script);

  const std::string array_job = capture("sbatch --parsable " + shell_quote((subdir / "array.sbatch").string()));
  const std::string array_id = array_job.substr(0, array_job.find(';'));
  const std::string report_job = capture(fmt::format("sbatch --parsable --dependency=afterany:{} {}", array_id,
                                                     shell_quote((subdir / "report.sbatch").string())));
  const std::string report_id = report_job.substr(0, report_job.find(';'));
  json info = {{"array_job", array_id},  {"report_job", report_id},          {"runs", ids.size()},
               {"tasks", tasks},         {"runs_per_task", o.runs_per_task}, {"max_concurrent", o.max_concurrent},
               {"submitted", iso_time_now()}, {"skipped_finished", finished}};
  write_file_atomic((subdir / "submission.json").string(), info.dump(1));
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
      q = capture(fmt::format("squeue -h -j {},{} -o %i", array_id, report_id));
    } catch (const std::exception&) {
      q = "";  // "Invalid job id": both purged already
    }
    if (q.empty()) break;
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
  int done = 0, budget = 0, diverged = 0, bad = 0;
  for (auto& id : ids) {
    std::string st = "missing";
    try {
      st = json::parse(read_file((exp_dir / id / "run.json").string())).value("status", "missing");
    } catch (...) {
    }
    if (st == "done") ++done;
    else if (st == "budget") ++budget;
    else if (st == "diverged") ++diverged;
    else ++bad;
  }
  std::cout << fmt::format("{} submitted runs: {} done, {} budget, {} diverged, {} failed, timed out, interrupted or "
                           "not run (see dualgap status {})\n",
                           ids.size(), done, budget, diverged, bad, exp_dir.string());
  return bad > 0 ? 1 : 0;
}

}  // namespace dualgap::slurm
