#include "run/status.hpp"
#include "base/json_text.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "base/process.hpp"
#include "base/util.hpp"
#include "experiment/schema.hpp"
#include "run/lock.hpp"
#include "run/recorder.hpp"
#include "run/run_files.hpp"

namespace dualgap {
namespace fs = std::filesystem;

namespace {

// Two states of a run that are the folder's, not a run.json's (RunStatus spells those): listed
// in a Slurm submission but not started, and a run.json the checked reader refused (the file
// is named on stderr).
constexpr const char* kPending = "pending";
constexpr const char* kDamaged = "damaged";

// Every state in the order it is printed: the finished ones, then the others.
std::vector<std::string> states_in_order() {
  std::vector<std::string> out;
  for (RunStatus s : {RunStatus::done, RunStatus::budget, RunStatus::diverged, RunStatus::failed, RunStatus::timeout,
                      RunStatus::interrupted, RunStatus::running})
    out.push_back(to_string(s));
  out.push_back(kPending);
  out.push_back(kDamaged);
  return out;
}

// A results folder is data anyone with write access to it may have written: every file is read
// only when it is a regular file of sane size (a FIFO would block, /dev/zero would never end).
std::string read_data_file(const fs::path& p, std::uintmax_t limit) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) throw std::runtime_error(printable(p.string()) + ": not a regular file");
  if (fs::file_size(p, ec) > limit)
    throw std::runtime_error(fmt::format("{}: larger than {} bytes, not a file dualgap wrote", printable(p.string()), limit));
  return read_file(p.string());
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the reader wants the rest.
std::string json_message(const std::exception& e) {
  std::string w = e.what();
  if (w.rfind("[json.exception.", 0) == 0 && w.find("] ") != std::string::npos) w = w.substr(w.find("] ") + 2);
  return w;
}

// A Slurm job id as squeue and sacct take it: decimal digits only.
bool job_id(const std::string& s) {
  return !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
}

// The keys of submission.json that status uses, checked: a job id is passed to squeue as one
// argument, and only after it was found to be digits.
json read_submission(const fs::path& file) {
  const std::string where = printable(file.string());
  json j;
  try {
    j = json::parse(read_data_file(file, 1u << 20));
  } catch (const json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON: {}", where, json_message(e)));
  }
  if (!j.is_object())
    throw std::runtime_error(fmt::format("{}: expected a JSON object (as `dualgap run --executor slurm` writes), got {}",
                                         where, printable(json_text(j).substr(0, 80))));
  auto shown = [](const json& v) { return printable(json_text(v).substr(0, 80)); };
  for (const char* key : {"array_job", "report_job"}) {
    if (!j.contains(key)) throw std::runtime_error(fmt::format("{}: key '{}' missing: expected a Slurm job id (a string of digits)", where, key));
    const json& v = j[key];
    if (!v.is_string() || !job_id(v.get<std::string>()))
      throw std::runtime_error(fmt::format("{}: key '{}': expected a Slurm job id (a string of digits, e.g. \"1234\"), got {}",
                                           where, key, shown(v)));
  }
  for (const char* key : {"runs", "tasks"})
    if (j.contains(key) && !(j[key].is_number_unsigned() || (j[key].is_number_integer() && j[key].get<long long>() >= 0)))
      throw std::runtime_error(fmt::format("{}: key '{}': expected a count (an integer >= 0), got {}", where, key, shown(j[key])));
  if (j.contains("submitted") && !j["submitted"].is_string())
    throw std::runtime_error(fmt::format("{}: key 'submitted': expected a time stamp string, got {}", where, shown(j["submitted"])));
  return {{"array_job", j["array_job"]},
          {"report_job", j["report_job"]},
          {"runs", j.value("runs", json(0))},
          {"tasks", j.value("tasks", json(0))},
          {"submitted", printable(j.value("submitted", std::string()))}};
}

// What a Slurm query printed; nullopt with `why` set when it could not say (no Slurm here, no
// accounting storage). squeue's "Invalid job id" means the jobs have left its memory: empty.
std::optional<std::string> query(const std::vector<std::string>& argv, std::string& why) {
  ProcessOptions po;
  po.timeout_s = 60;
  ProcessResult r;
  try {
    r = run_process(argv, po);
  } catch (const std::exception&) {
    why = argv[0] + " unavailable";
    return std::nullopt;
  }
  if (r.ok()) return r.out;
  if (r.exit_code > 0 && r.err.find("Invalid job id") != std::string::npos) return std::string();
  const std::string first = r.err.substr(0, r.err.find('\n'));
  why = fmt::format("{} failed ({}{})", argv[0], r.how_ended(), first.empty() ? "" : ": " + printable(first));
  return std::nullopt;
}

// "RUNNING x2, PENDING x1" from lines "<jobid> <STATE>" whose job id is `job` or `job_<task>`.
std::string states_of(const std::string& lines, const std::string& job) {
  std::map<std::string, int> count;
  std::istringstream in(lines);
  std::string id, state;
  while (in >> id >> state)
    if (id == job || id.rfind(job + "_", 0) == 0) ++count[printable(state)];
  std::vector<std::string> parts;
  for (auto& [s, n] : count) parts.push_back(n > 1 ? fmt::format("{} x{}", s, n) : s);
  return parts.empty() ? "" : fmt::format("{}", fmt::join(parts, ", "));
}

bool is_experiment_dir(const fs::path& d) {
  std::error_code ec;
  if (fs::exists(d / ".slurm", ec) || fs::exists(d / ".lock", ec)) return true;
  for (auto& e : fs::directory_iterator(d, ec))
    if (e.is_directory(ec) && (!run_file_in(e.path()).empty() || fs::exists(e.path() / "run.partial.jsonl", ec)))
      return true;
  return false;
}

// The status a run.json records, or kDamaged (named on stderr) when the checked reader refuses it.
std::string recorded_status(const fs::path& file) {
  try {
    const std::string word = read_run_file(file.string(), CurveMode::columns).doc["status"].get<std::string>();
    return to_string(run_status_from_string(word).value());  // the checked reader accepts only these words
  } catch (const std::exception& ex) {
    std::cerr << "warning: " << printable(ex.what()) << "\n";
    return kDamaged;
  }
}

json experiment_status(const fs::path& dir, std::vector<std::string>& errors) {
  const std::string holder = FolderLock::holder(dir.string());
  std::map<std::string, std::string> run_status;  // run id -> status
  std::error_code ec;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_directory(ec) || e.path().filename().string().front() == '.') continue;
    const std::string id = e.path().filename().string();
    if (const fs::path record = run_file_in(e.path()); !record.empty()) run_status[id] = recorded_status(record);
    // A partial log means a child is at work, or was killed with its parent (SIGKILL): then
    // nobody holds the folder's lock any more and the run counts as interrupted.
    if (fs::exists(e.path() / "run.partial.jsonl", ec)) run_status[id] = to_string(holder.empty() ? RunStatus::interrupted : RunStatus::running);
  }
  json subs = json::array();
  std::vector<fs::path> subdirs;
  for (auto& e : fs::directory_iterator(dir / ".slurm", ec))
    if (e.is_directory(ec)) subdirs.push_back(e.path());
  std::sort(subdirs.begin(), subdirs.end());
  std::vector<std::string> jobs;
  for (auto& sd : subdirs) {
    // The folder of a submission that sbatch refused (its scripts kept to see why): no jobs.
    if (fs::symlink_status(sd / "submission.json", ec).type() == fs::file_type::not_found) {
      subs.push_back({{"folder", printable(sd.string())}, {"submitted", false}});
      continue;
    }
    try {
      if (fs::exists(sd / "runs.txt", ec)) {
        std::istringstream in(read_data_file(sd / "runs.txt", 64u << 20));
        std::string id;
        while (std::getline(in, id))
          if (!id.empty() && !run_status.count(id)) run_status[id] = kPending;
      }
      json info = read_submission(sd / "submission.json");
      info["folder"] = printable(sd.string());
      jobs.push_back(info["array_job"].get<std::string>());
      jobs.push_back(info["report_job"].get<std::string>());
      subs.push_back(info);
    } catch (const std::exception& e) {
      errors.push_back(e.what());
      subs.push_back({{"folder", printable(sd.string())}, {"error", e.what()}});
    }
  }
  if (!jobs.empty()) {
    const std::string list = fmt::format("{}", fmt::join(jobs, ","));
    std::string sq_why, sa_why;
    const auto sq = query({"squeue", "-h", "-r", "-j", list, "-o", "%i %T"}, sq_why);
    const auto sa = query({"sacct", "-n", "-X", "-P", "-j", list, "-o", "JobID,State", "--delimiter= "}, sa_why);
    for (auto& s : subs) {
      if (!s.contains("array_job")) continue;
      if (!sq) s["squeue_error"] = sq_why;
      for (const char* k : {"array_job", "report_job"}) {
        const std::string job = s[k];
        const std::string q = sq ? states_of(*sq, job) : "";
        s[std::string(k) + "_squeue"] = sq ? json(q.empty() ? "not in the queue" : q) : json(nullptr);
        s[std::string(k) + "_sacct"] = sa ? states_of(*sa, job) : "";  // "": no accounting storage
      }
    }
  }
  json counts = json::object();
  for (auto& s : states_in_order()) counts[s] = 0;
  for (auto& [id, st] : run_status) counts[st] = counts.value(st, 0) + 1;
  return {{"experiment", printable(dir.filename().string())},
          {"folder", printable(dir.string())},
          {"runs", run_status.size()},
          {"counts", counts},
          {"lock", printable(holder)},
          {"slurm", subs}};
}

void print_text(const json& e) {
  const json& c = e["counts"];
  auto n = [&](const std::string& k) { return c[k].get<int>(); };
  const std::string done = to_string(RunStatus::done), budget = to_string(RunStatus::budget);
  std::string line = fmt::format("{}: {} runs: {}", e["folder"].get<std::string>(), e["runs"].get<int>(),
                                 finished_counts(n(done), n(budget)));
  for (const auto& k : states_in_order())
    if (k != done && k != budget) line += fmt::format(", {} {}", n(k), k);
  std::cout << line << "\n";
  if (!e["lock"].get<std::string>().empty()) std::cout << "  in use by " << e["lock"].get<std::string>() << "\n";
  for (auto& s : e["slurm"]) {
    if (s.contains("submitted") && s["submitted"] == false) {
      std::cout << fmt::format("  slurm submission {}: not submitted (no submission.json: sbatch refused it)\n",
                               s["folder"].get<std::string>());
      continue;
    }
    if (s.contains("error")) {
      std::cout << fmt::format("  slurm submission not read: {}\n", s["error"].get<std::string>());
      continue;
    }
    auto job = [&](const char* k) {
      const std::string sacct = s.value(std::string(k) + "_sacct", "");
      const json sq = s.value(std::string(k) + "_squeue", json(nullptr));
      return fmt::format("{}: {}{}", s[k].get<std::string>(),
                         sq.is_string() ? sq.get<std::string>() + " (squeue)" : s.value("squeue_error", "squeue unavailable"),
                         sacct.empty() ? "" : ", " + sacct + " (sacct)");
    };
    std::cout << fmt::format("  slurm submission of {} runs ({} tasks), {}: array job {}; report job {}\n",
                             s["runs"].get<long long>(), s["tasks"].get<long long>(), s["submitted"].get<std::string>(),
                             job("array_job"), job("report_job"));
  }
}

}  // namespace

json status_of(const std::vector<std::string>& folders, std::vector<std::string>& errors) {
  json out = json::array();
  for (auto& in : folders) {
    const fs::path p(in);
    if (!fs::is_directory(p)) throw ConfigError(in + ": not a results folder");
    if (is_experiment_dir(p)) {
      out.push_back(experiment_status(p, errors));
      continue;
    }
    std::vector<fs::path> dirs;
    for (auto& e : fs::directory_iterator(p))
      if (e.is_directory() && e.path().filename().string().front() != '.' && is_experiment_dir(e.path()))
        dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (auto& d : dirs) out.push_back(experiment_status(d, errors));
  }
  return out;
}

void print_status(const json& experiments) {
  if (experiments.empty()) std::cout << "no experiments found\n";
  for (auto& e : experiments) print_text(e);
}

}  // namespace dualgap
