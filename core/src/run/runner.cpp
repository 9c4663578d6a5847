#include "run/runner.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <memory>
#include <fmt/format.h>
#include <iostream>
#include <thread>

#include "dualgap/parse.hpp"
#include "data/cache.hpp"
#include "run/child_pool.hpp"
#include "run/iterates.hpp"
#include "run/prepare.hpp"
#include "dualgap/objective.hpp"
#include "run/recorder.hpp"
#include "run/signals.hpp"
#include "base/json_text.hpp"
#include "base/process.hpp"
#include "base/util.hpp"

namespace dualgap {
namespace fs = std::filesystem;

namespace {

// The git revision of the source tree, read once per process (before the runner forks).
const std::string& source_revision() {
  static const std::string rev = [] {
    std::string git;
    try {
      ProcessOptions po;
      po.err = ProcessOptions::Stream::discard;
      po.timeout_s = 10;
      const auto r = run_process({"git", "-C", DUALGAP_SOURCE_DIR, "rev-parse", "--short", "HEAD"}, po);
      if (r.ok()) git = r.out.substr(0, r.out.find_first_of("\r\n"));
    } catch (const std::exception&) {
      // no git on this machine: the revision is recorded as null
    }
    return git;
  }();
  return rev;
}

json environment_json() {
  json e;
  e["version"] = kVersion;
  e["api_version"] = kApiVersion;
  e["compiler"] = std::string("g++ ") + __VERSION__;
  e["started"] = iso_time_now();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  e["host"] = host;
  const std::string& git = source_revision();
  e["git"] = git.empty() ? json(nullptr) : json(git);
  e["hardware_concurrency"] = std::thread::hardware_concurrency();
  return e;
}

json base_json(const RunSpec& run, const std::string& hash, const PluginRegistry& reg) {
  json j{{"schema", "dualgap.run/2"},
              {"experiment", run.experiment},
              {"run_id", run.run_id},
              {"solver", run.solver_name},
              {"label", run.label.empty() ? run.solver_name : run.label},
              {"repeat", run.repeat},
              {"status", "running"},
              {"message", ""},
              {"problem_key", run.problem_key},
              {"group_key", run.group_key},
              {"approximate", false},
              {"config", run.config},
              {"config_hash", hash}};
  j["data_hashes"] = data_hashes(run.config["data"], reg);
  return j;
}

// run.json's "objective": what the core scored (family, loss, lambda, ...) and, when there is
// one, the oracle that defines the loss. compare groups runs by objective_key within a problem
// (group_key), so that it never ranks runs of different objectives against one bound (e.g.
// square and logistic least squares on one data set).
void describe_objective(json& out, const RunSpec& run, const Objective& objective) {
  json o = objective.describe();
  const json& oracle = run.config["oracle"];
  if (oracle.is_object()) o["oracle"] = {{"plugin", oracle["plugin"]}, {"params", oracle["params"]}};
  if (run.config["problem"].contains("reference")) o["reference"] = run.config["problem"]["reference"];
  Hash64 k;
  k.add(json_text(o));
  out["objective"] = o;
  out["objective_key"] = k.hex();
}

// Folders are hashed file by file up to this many files: a path parameter naming a huge tree
// (a crafted run.json naming "/") must not make evaluate or run read a whole file system.
constexpr std::size_t kMaxFolderFiles = 100000;

// The content hash of a folder: its regular files' relative names and hashes, in name order
// (empty when it holds more than kMaxFolderFiles files).
std::pair<std::string, std::size_t> folder_hash(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec) && files.size() <= kMaxFolderFiles) files.push_back(it->path());
  if (files.size() > kMaxFolderFiles) return {"", files.size()};
  std::sort(files.begin(), files.end());
  Hash64 h;
  for (const auto& f : files) {
    h.add(fs::relative(f, dir, ec).string() + '\0');
    h.add(file_hash_hex(f.string()));
  }
  return {h.hex(), files.size()};
}

}  // namespace

json data_hashes(const json& data_section, const PluginRegistry& reg) {
  // Memoized per data section: the parent hashes before it forks, the runs' children reuse it.
  static std::mutex mu;
  static std::map<std::string, json> memo;
  const std::string memo_key = json_text(data_section);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(memo_key); it != memo.end()) return it->second;
  }
  json out = json::object();
  // Only the dataset plugin's path parameters name data: no other string of the section (a
  // format name, a crafted value in a results folder) is taken for a file or folder to read.
  const LoadedPlugin* plugin =
      data_section.is_object() && data_section.contains("plugin") && data_section["plugin"].is_string()
          ? reg.find(Kind::dataset, data_section["plugin"].get<std::string>())
          : nullptr;
  const json& params = plugin && data_section.contains("params") ? data_section["params"] : json(nullptr);
  if (params.is_object())
    for (const auto& spec : plugin->description->params) {
      if (spec.type != ParamType::path || !params.contains(spec.name) || !params[spec.name].is_string()) continue;
      const std::string s = params[spec.name];
      std::error_code ec;
      if (s.empty()) continue;
      const auto st = fs::status(s, ec);
      if (ec) continue;
      const std::string key = "params." + spec.name, path = fs::weakly_canonical(s, ec).string();
      if (fs::is_regular_file(st)) {
        out[key] = {{"path", path}, {"xxh3", file_hash_hex(s)}};
      } else if (fs::is_directory(st)) {
        const auto [hash, n] = folder_hash(s);
        out[key] = {{"path", path}, {"xxh3", hash.empty() ? json(nullptr) : json(hash)}, {"files", n}};
      }
    }
  std::lock_guard<std::mutex> lock(mu);
  memo[memo_key] = out;
  return out;
}

bool finished_before(const std::string& dir, const std::string& hash) {
  try {
    auto j = json::parse(read_file((fs::path(dir) / "run.json").string()));
    const auto st = run_status_from_string(j.value("status", ""));
    return j.value("config_hash", "") == hash && (st == RunStatus::done || st == RunStatus::budget);
  } catch (...) {
    return false;
  }
}

void execute_run(const RunSpec& run, const std::string& run_dir, const std::string& hash, const PluginRegistry& reg,
                 const std::string& cache_dir, int jobs) {
  using Clock = std::chrono::steady_clock;
  const auto wall_start = Clock::now();
  fs::create_directories(run_dir);
  const std::string final_path = (fs::path(run_dir) / "run.json").string();
  const std::string partial_path = (fs::path(run_dir) / "run.partial.jsonl").string();
  json out = base_json(run, hash, reg);
  out["environment"] = environment_json();

  OracleCounters counters;
  const json& cfg = run.config;
  RunRecorder rec(StopCriteria::from_json(cfg["stop"]), Schedule::from_json(cfg["record"]), &counters);
  json info = json::object();
  auto snapshot = [&](const char* status) {
    json j = out;
    j["status"] = status;
    j["approximate"] = rec.approximate();
    if (json sm = rec.sampling_json(); !sm.is_null()) j["sampling"] = sm;
    j["curve"] = rec.curve_json();
    json s = rec.summary_json();
    s["wall_time"] = std::chrono::duration<double>(Clock::now() - wall_start).count();
    s["peak_rss_bytes"] = peak_rss_bytes();
    j["summary"] = s;
    j["data_info"] = info;
    return j;
  };
  // The partial log (what the parent keeps of a killed or crashed run): a header line, written
  // once the objective is known, then one appended line per checkpoint, so that recording stays
  // cheap for short runs.
  std::unique_ptr<FILE, int (*)(FILE*)> partial(nullptr, &std::fclose);
  auto open_partial = [&] {
    // Written in place, line by line, because a killed run must leave what it had: a new file
    // (never through a link planted in the run folder), kept only while the run lives.
    try {
      partial.reset(fdopen(open_in_place(partial_path, InPlace::fresh, 0644).release(), "w"));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "warning: no partial log: %s\n", e.what());
    }
    if (!partial) return;
    json header = out;
    header["data_info"] = json::object();
    std::fputs((json_text(header) + "\n").c_str(), partial.get());
    std::fflush(partial.get());
  };
  IterateStore iterates(run_dir, cfg["record"].value("iterates", std::string("final")));
  rec.on_iterate = [&](const Iterate& it, std::size_t row, double passes) { iterates.keep(it, row, passes); };
  rec.on_row = [&] {
    if (!partial) return;
    json row = rec.row_json(rec.rows() - 1);
    row["approximate"] = rec.approximate();
    if (json sm = rec.sampling_json(); !sm.is_null()) row["sampling"] = sm;
    row["wall_time"] = std::chrono::duration<double>(Clock::now() - wall_start).count();
    std::fputs((json_text(row) + "\n").c_str(), partial.get());
    std::fflush(partial.get());
  };

  try {
    PreparedRun prepared;
    prepare_run(cfg, reg, cache_dir, &counters, prepared, [&run](const std::string& p) { return run.locate(p); });
    info = prepared.info;
    // A problem is its data, not the seeds that could have drawn them: repeats on a fixed
    // train/test split share one key (and compare one pair of reference bounds), while a random
    // split, a subsample, generated data or random features give one key per draw. The key
    // expand_experiment gave (the seeds) stays for a run that fails before its data exist.
    const std::string content = data_content_hash(prepared.data);
    Hash64 key;
    key.add(run.group_key);
    key.add(content);
    out["data_content_hash"] = content;
    out["problem_key"] = key.hex();
    out["config"]["problem_resolved"] = prepared.problem.params;
    out["config"]["solver"]["params_resolved"] = prepared.solver_params;
    const Problem& pb = prepared.problem;
    Solver* solver = prepared.solver.get();
    const json& vars = prepared.vars;
    ScoreOptions score_options;
    score_options.train_error = cfg["record"].value("train_error", true);
    score_options.threads = scoring_threads(prepared.solver_params, jobs);
    score_options.make_oracle = prepared.make_oracle;
    out["environment"]["scoring_threads"] = score_options.threads;
    const auto objective = make_objective(pb, *solver, score_options);
    rec.set_objective(objective.get());
    describe_objective(out, run, *objective);
    open_partial();

    SolverContext ctx;
    ctx.recorder = &rec;
    ctx.seed = cfg["seeds"]["solver"].get<std::uint64_t>();
    ctx.make_features = [&reg, vars](const std::string& plugin, const json& params) {
      const LoadedPlugin& fp = reg.get(Kind::features, plugin);
      json given = params.is_null() ? json::object() : params;
      json v = apply_schema(fp.description->params, given, "features plugin " + plugin, nullptr, &vars);
      return create_object<FeatureGenerator>(fp, Params(v));
    };
    ctx.make_oracle = prepared.make_oracle;
    rec.start();
    solver->solve(pb, ctx);
    rec.finish();
    if (rec.status() == RunStatus::running) rec.set_status(RunStatus::done, "the solver stopped by its own criterion");
    if (rec.rows() == 0) rec.set_status(RunStatus::failed, "the solver recorded no checkpoint");
  } catch (const std::exception& e) {
    rec.finish();
    rec.set_status(RunStatus::failed, e.what());
  } catch (...) {
    rec.finish();
    rec.set_status(RunStatus::failed, "unknown exception");
  }
  out["message"] = rec.message();
  try {
    out["iterates"] = iterates.finish();
  } catch (const std::exception& e) {
    rec.set_status(RunStatus::failed, std::string("saving the iterates failed: ") + e.what());
    out["message"] = rec.message();
  }
  json final_json = snapshot(to_string(rec.status()));
  final_json["message"] = rec.message();
  write_file_atomic(final_path, json_text(final_json, 1));
  partial.reset();
  std::error_code ec;
  fs::remove(partial_path, ec);
}

namespace {

using SteadyClock = std::chrono::steady_clock;

// The watchdog's wall-clock limit of a run: --deadline, else stop.deadline, else three times the
// solver's time budget plus two minutes (loading and evaluation fall outside max_time), else an hour.
double run_deadline(const RunSpec& run, const RunnerOptions& opts) {
  if (opts.deadline_s > 0) return opts.deadline_s;
  const json& stop = run.config["stop"];
  if (stop.contains("deadline") && !stop["deadline"].is_null()) return stop["deadline"].get<double>();
  if (stop.contains("max_time") && !stop["max_time"].is_null()) return 3 * stop["max_time"].get<double>() + 120;
  return 3600;
}

/// Where each run writes and its config hash, by the run's index, and the runs left to start.
struct Plan {
  std::vector<std::string> dirs, hashes;
  std::deque<std::size_t> queue;
};

// After a child ended without a run.json that describes its end: rebuild its partial curve from
// the append-only log (header line + one line per checkpoint), with the status and message
// classify() gave (timeout, interrupted, failed).
void salvage(const RunSpec& run, const std::string& dir, const std::string& hash, SteadyClock::time_point started,
             RunStatus status, const std::string& message, const PluginRegistry& reg) {
  const auto partial = fs::path(dir) / "run.partial.jsonl";
  json j = base_json(run, hash, reg);
  std::vector<json> rows;
  std::string text;
  try {
    text = read_file(partial.string());  // a FIFO or device planted there is refused, not waited on
  } catch (const std::exception&) {
  }
  {
    std::istringstream in(text);
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
      json v;
      try {
        v = json::parse(line);
      } catch (...) {
        break;  // a line cut by the kill
      }
      if (first) j = v;
      else rows.push_back(std::move(v));
      first = false;
    }
  }
  json curve = json::object();
  std::vector<std::string> names;
  for (auto& r : rows)
    for (auto& [k, v] : r.items())
      if (k != "approximate" && k != "wall_time" && k != "sampling" && !curve.contains(k)) {
        curve[k] = json::array();
        names.push_back(k);
      }
  for (auto& r : rows)
    for (auto& k : names) curve[k].push_back(r.contains(k) ? r[k] : json(nullptr));
  json summary = json::object();
  if (!rows.empty()) {
    for (auto& k : names) summary[k] = rows.back().value(k, json(nullptr));
    j["approximate"] = rows.back().value("approximate", false);
    if (rows.back().contains("sampling")) j["sampling"] = rows.back()["sampling"];
  }
  summary["rows"] = rows.size();
  summary["wall_time"] = std::chrono::duration<double>(SteadyClock::now() - started).count();
  j["curve"] = curve;
  j["summary"] = summary;
  j["status"] = to_string(status);
  j["message"] = message;
  write_file_atomic((fs::path(dir) / "run.json").string(), json_text(j, 1));
  std::error_code ec;
  fs::remove(partial, ec);
}

/// The status <dir>/run.json states; nullopt when it is unreadable, has none or an unknown one.
std::optional<RunStatus> written_status(const std::string& dir) {
  try {
    auto j = json::parse(read_file((fs::path(dir) / "run.json").string()));
    return run_status_from_string(j.value("status", std::string("failed")));
  } catch (...) {
    return std::nullopt;
  }
}

// A run's line in the output: status and last values from its run.json, and its message when
// the run did not end well.
std::string describe_row(const std::string& dir) {
  try {
    auto j = json::parse(read_file((fs::path(dir) / "run.json").string()));
    const auto& s = j["summary"];
    auto num = [&](const char* k) -> std::string {
      return s.contains(k) && s[k].is_number() ? fmt::format("{:.6g}", s[k].get<double>()) : "-";
    };
    std::string msg = j.value("message", "");
    std::string st = j.value("status", "?");
    // time: the solver's (what stop.max_time and the curves count); eval: scoring the checkpoints,
    // kept out of it and shown beside it.
    std::string line = fmt::format("{:<8} primal {} gap {} passes {} time {}s eval {}s", st, num("primal"), num("gap"),
                                   num("passes"), num("time"), num("eval_time"));
    const auto status = run_status_from_string(st);
    if (status == RunStatus::failed || status == RunStatus::timeout || status == RunStatus::diverged ||
        status == RunStatus::interrupted)
      line += ": " + msg;
    return line;
  } catch (const std::exception& e) {
    return std::string("unreadable run.json: ") + e.what();
  }
}

// The summary's counts (classify() never gives `running`; it would be a failure).
void count(RunnerSummary& sum, RunStatus status) {
  switch (status) {
    case RunStatus::done: ++sum.done; break;
    case RunStatus::budget: ++sum.budget; break;
    case RunStatus::timeout: ++sum.timeout; break;
    case RunStatus::diverged: ++sum.diverged; break;
    case RunStatus::interrupted: ++sum.interrupted; break;
    case RunStatus::failed:
    case RunStatus::running: ++sum.failed; break;
  }
}

// What `dualgap run` prints: a [skip] line per run that finished before, a line per run that
// ends and, on a terminal, a live line of counts with an estimate of the time left.
class Progress {
 public:
  explicit Progress(const RunnerOptions& opts) : opts_(opts) {}
  void skipped(const std::string& run_id) const {
    if (!opts_.quiet) std::cout << fmt::format("[skip] {} (finished before; --force to rerun)\n", run_id);
  }
  void starting(std::size_t to_run) {
    std::cout.flush();
    to_run_ = static_cast<int>(to_run);
  }
  /// The live line (a terminal only), rewritten in place.
  void live(std::size_t running, const RunnerSummary& sum) const {
    if (!opts_.progress_tty || opts_.quiet) return;
    const double eta = finished_ ? total_time_ / finished_ * (to_run_ - finished_) / std::max(1, opts_.jobs) : 0;
    std::cout << fmt::format("\r[{}/{} done, {} running, {} failed] ETA {:.0f}s   ", finished_, to_run_, running,
                             sum.failed + sum.timeout, eta)
              << std::flush;
  }
  /// A run ended: its line (`row`: status and last values, from its run.json).
  void ended(const std::string& run_id, double elapsed_s, const std::string& row) {
    ++finished_;
    total_time_ += elapsed_s;
    if (opts_.quiet) return;
    if (opts_.progress_tty) std::cout << "\r\033[K";
    std::cout << fmt::format("[{}/{}] {:<40} {}\n", finished_, to_run_, run_id, row);
  }
  void finish() const {
    if (opts_.progress_tty && !opts_.quiet) std::cout << "\r\033[K" << std::flush;
  }

 private:
  const RunnerOptions& opts_;
  int to_run_ = 0;
  int finished_ = 0;
  double total_time_ = 0;
};

// Where each run writes and its config hash, computed in the parent before any child is forked
// (the data hashes too: memoized, the children reuse them). A run that finished before with the
// same config hash is skipped unless forced: that is the resume.
Plan plan_runs(const std::vector<RunSpec>& runs, const RunnerOptions& opts, const PluginRegistry& reg,
               RunnerSummary& sum, const Progress& progress) {
  Plan plan;
  plan.dirs.resize(runs.size());
  plan.hashes.resize(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    plan.dirs[i] = (fs::path(opts.out_dir) / runs[i].experiment / runs[i].run_id).string();
    plan.hashes[i] = config_hash(runs[i], reg);
    data_hashes(runs[i].config["data"], reg);
    sum.run_dirs.push_back(plan.dirs[i]);
    if (!opts.force && finished_before(plan.dirs[i], plan.hashes[i])) {
      ++sum.skipped;
      progress.skipped(runs[i].run_id);
      continue;
    }
    plan.queue.push_back(i);
  }
  return plan;
}

// The body of a run's child: its stderr goes to the run folder (a new file: never through a
// planted link), then the run; exit status 1 when run.json could not be written.
int run_child(const RunSpec& run, const std::string& dir, const std::string& hash, const PluginRegistry& reg,
              const std::string& cache_dir, int jobs) {
  try {
    Fd log = open_in_place((fs::path(dir) / "stderr.log").string(), InPlace::fresh, 0644);
    dup2(log.get(), 2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: %s\n", e.what());
  }
  try {
    execute_run(run, dir, hash, reg, cache_dir, jobs);
  } catch (const std::exception& e) {  // the parent reports it
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

// A child ended: classify its end, write its run.json from the partial log when the child's does
// not describe the end, then count and print the run.
void settle(const ChildPool::Ended& ended, const RunSpec& run, const Plan& plan, const PluginRegistry& reg,
            RunnerSummary& sum, Progress& progress) {
  const std::string& dir = plan.dirs[ended.child.index];
  ChildEnd end;
  end.exit_code = ended.exit_code;
  end.signal = ended.signal;
  end.watchdog = ended.child.killed;
  end.stop_requested = sum.stop_signal != 0;
  end.wrote = fs::exists(fs::path(dir) / "run.json") && !fs::exists(fs::path(dir) / "run.partial.jsonl");
  if (end.wrote) end.written = written_status(dir);
  end.elapsed_s = ended.elapsed_s;
  end.deadline_s = ended.child.deadline_s;
  const ChildVerdict verdict = classify(end);
  // run.json could not be written (a full disk): the run failed, and the run.json left from an
  // earlier run (kept whole by the atomic write) does not describe it
  std::string unwritten;
  if (verdict.salvage) {
    try {
      salvage(run, dir, plan.hashes[ended.child.index], ended.child.started, verdict.status, verdict.message, reg);
    } catch (const std::exception& e) {
      unwritten = e.what();
    }
  }
  count(sum, unwritten.empty() ? verdict.status : RunStatus::failed);
  progress.ended(run.run_id, ended.elapsed_s,
                 unwritten.empty() ? describe_row(dir) : "failed   run.json not written: " + unwritten);
}

}  // namespace

RunnerSummary run_all(const std::vector<RunSpec>& runs, const RunnerOptions& opts, const PluginRegistry& reg) {
  RunnerSummary sum;
  sum.total = static_cast<int>(runs.size());
  const std::string cache_dir = (fs::path(opts.out_dir) / ".cache").string();
  source_revision();  // once, before forking
  Progress progress(opts);
  Plan plan = plan_runs(runs, opts, reg, sum, progress);
  progress.starting(plan.queue.size());
  const StopSignals stop_signals;  // SIGTERM/SIGINT/SIGHUP: stop the children, keep their curves
  ChildPool pool(opts.jobs);
  while (!plan.queue.empty() || !pool.empty()) {
    if (const int sig = StopSignals::received(); sig != 0 && sum.stop_signal == 0) {
      sum.stop_signal = sig;
      plan.queue.clear();  // not started: left for the resume
      pool.stop_all();
    }
    while (!plan.queue.empty() && !pool.full()) {
      const std::size_t i = plan.queue.front();
      plan.queue.pop_front();
      fs::create_directories(plan.dirs[i]);
      pool.start(i, run_deadline(runs[i], opts),
                 [&] { return run_child(runs[i], plan.dirs[i], plan.hashes[i], reg, cache_dir, opts.jobs); });
      progress.live(pool.size(), sum);
    }
    const auto ended = pool.poll();
    for (std::size_t k = 0; k < ended.size(); ++k) {
      settle(ended[k], runs[ended[k].child.index], plan, reg, sum, progress);
      progress.live(pool.size() + (ended.size() - k - 1), sum);  // those of this tick not yet settled still count
    }
  }
  progress.finish();
  return sum;
}

}  // namespace dualgap
