#include "run/status.hpp"

#include <sys/wait.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "run/lock.hpp"
#include "run/run_files.hpp"
#include "experiment/schema.hpp"
#include "base/util.hpp"

namespace dualgap {
namespace fs = std::filesystem;
namespace po = boost::program_options;

namespace {

// The statuses in the order they are printed: a run's own ones, then the two of runs not ended,
// then runs whose run.json is damaged (read_run_file refused it; the file is named on stderr).
const std::vector<std::string> kStatuses = {"done",        "budget",  "diverged", "failed", "timeout",
                                            "interrupted", "running", "pending",  "damaged"};

// Output of a Slurm query, or nullopt when the command fails (no Slurm, no accounting).
std::optional<std::string> query(const std::string& cmd) {
  std::string out;
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return std::nullopt;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int st = pclose(p);
  if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) return std::nullopt;
  return out;
}

// "RUNNING x2, PENDING x1" from lines "<jobid> <STATE>" whose job id starts with `job`.
std::string states_of(const std::string& lines, const std::string& job) {
  std::map<std::string, int> count;
  std::istringstream in(lines);
  std::string id, state;
  while (in >> id >> state)
    if (id == job || id.rfind(job + "_", 0) == 0) ++count[state];
  std::vector<std::string> parts;
  for (auto& [s, n] : count) parts.push_back(n > 1 ? fmt::format("{} x{}", s, n) : s);
  return parts.empty() ? "" : fmt::format("{}", fmt::join(parts, ", "));
}

bool is_experiment_dir(const fs::path& d) {
  std::error_code ec;
  if (fs::exists(d / ".slurm", ec) || fs::exists(d / ".lock", ec)) return true;
  for (auto& e : fs::directory_iterator(d, ec))
    if (e.is_directory() && (fs::exists(e.path() / "run.json") || fs::exists(e.path() / "run.partial.jsonl")))
      return true;
  return false;
}

json experiment_status(const fs::path& dir) {
  const std::string holder = FolderLock::holder(dir.string());
  std::map<std::string, std::string> run_status;  // run id -> status
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_directory() || e.path().filename().string().front() == '.') continue;
    const std::string id = e.path().filename().string();
    if (fs::exists(e.path() / "run.json")) {
      try {
        run_status[id] = read_run_file((e.path() / "run.json").string(), CurveMode::columns).doc["status"].get<std::string>();
      } catch (const std::exception& ex) {
        std::cerr << "warning: " << ex.what() << "\n";
        run_status[id] = "damaged";
      }
    }
    // A partial log means a child is at work, or was killed with its parent (SIGKILL): then
    // nobody holds the folder's lock any more and the run counts as interrupted.
    if (fs::exists(e.path() / "run.partial.jsonl")) run_status[id] = holder.empty() ? "interrupted" : "running";
  }
  json subs = json::array();
  std::vector<fs::path> subdirs;
  for (auto& e : fs::directory_iterator(dir / ".slurm", ec))
    if (e.is_directory()) subdirs.push_back(e.path());
  std::sort(subdirs.begin(), subdirs.end());
  std::string jobs;
  for (auto& sd : subdirs) {
    std::istringstream in;  // read whole: a FIFO or device planted there is refused, not waited on
    try {
      in.str(read_file((sd / "runs.txt").string()));
    } catch (const std::exception&) {
    }
    std::string id;
    while (std::getline(in, id))
      if (!id.empty() && !run_status.count(id)) run_status[id] = "pending";
    try {
      json info = json::parse(read_file((sd / "submission.json").string()));
      info["folder"] = sd.string();
      subs.push_back(info);
      jobs += (jobs.empty() ? "" : ",") + info.value("array_job", "") + "," + info.value("report_job", "");
    } catch (...) {
    }
  }
  if (!jobs.empty()) {
    const auto sq = query("squeue -h -r -j " + jobs + " -o '%i %T'");
    const auto sa = query("sacct -n -X -P -j " + jobs + " -o JobID,State --delimiter=' '");
    for (auto& s : subs) {
      for (const char* k : {"array_job", "report_job"}) {
        const std::string job = s.value(k, "");
        s[std::string(k) + "_squeue"] = sq ? json(states_of(*sq, job).empty() ? "not in the queue" : states_of(*sq, job))
                                           : json("squeue unavailable");
        s[std::string(k) + "_sacct"] = sa ? states_of(*sa, job) : "";  // "": no accounting storage
      }
    }
  }
  json counts = json::object();
  for (auto& s : kStatuses) counts[s] = 0;
  for (auto& [id, st] : run_status) counts[st] = counts.value(st, 0) + 1;
  return {{"experiment", dir.filename().string()}, {"folder", dir.string()}, {"runs", run_status.size()},
          {"counts", counts}, {"lock", holder}, {"slurm", subs}};
}

}  // namespace

int status_main(const std::vector<std::string>& args) {
  po::options_description desc("dualgap status RESULTS... [--json]");
  std::vector<std::string> inputs;
  desc.add_options()("help,h", "this help")("json", "machine-readable output");
  po::options_description hidden;
  hidden.add_options()("inputs", po::value(&inputs));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc
              << "\nFor each experiment under RESULTS (a results folder or one experiment's folder): how many runs are\n"
                 "done, budget, diverged, failed, timeout, interrupted, running, pending (listed in a Slurm\n"
                 "submission, not started) and damaged (a run.json that is not a valid run record: named on\n"
                 "stderr), who holds the folder's lock, and for Slurm submissions the job ids\n"
                 "with the states squeue and sacct report.\n";
    return 0;
  }
  if (inputs.empty()) throw po::error("no results folder given");
  json out = json::array();
  for (auto& in : inputs) {
    const fs::path p(in);
    if (!fs::is_directory(p)) throw ConfigError(in + ": not a results folder");
    if (is_experiment_dir(p)) {
      out.push_back(experiment_status(p));
      continue;
    }
    std::vector<fs::path> dirs;
    for (auto& e : fs::directory_iterator(p))
      if (e.is_directory() && e.path().filename().string().front() != '.' && is_experiment_dir(e.path()))
        dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (auto& d : dirs) out.push_back(experiment_status(d));
  }
  if (vm.count("json")) {
    std::cout << out.dump(1) << "\n";
    return 0;
  }
  if (out.empty()) std::cout << "no experiments found\n";
  for (auto& e : out) {
    std::vector<std::string> parts;
    for (auto& s : kStatuses) parts.push_back(fmt::format("{} {}", e["counts"][s].get<int>(), s));
    std::cout << fmt::format("{}: {} runs: {}\n", e["folder"].get<std::string>(), e["runs"].get<int>(),
                             fmt::join(parts, ", "));
    if (!e["lock"].get<std::string>().empty()) std::cout << "  in use by " << e["lock"].get<std::string>() << "\n";
    for (auto& s : e["slurm"])
      std::cout << fmt::format("  slurm submission of {} runs ({} tasks), {}: array job {}: {} (squeue){}; report job {}: "
                               "{} (squeue){}\n",
                               s.value("runs", 0), s.value("tasks", 0), s.value("submitted", ""),
                               s.value("array_job", ""), s.value("array_job_squeue", ""),
                               s.value("array_job_sacct", "").empty() ? "" : ", " + s.value("array_job_sacct", "") + " (sacct)",
                               s.value("report_job", ""), s.value("report_job_squeue", ""),
                               s.value("report_job_sacct", "").empty() ? "" : ", " + s.value("report_job_sacct", "") + " (sacct)");
  }
  return 0;
}

}  // namespace dualgap
